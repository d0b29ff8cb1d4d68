import { describe, expect, it } from 'vitest';
import type { Node } from '../../model/objects.js';
import { applyPatch, CORDONED, IN_FLIGHT, MARK, markPatch, type MarkChange } from './marks.js';

const node = (o: { cordoned?: boolean; byUs?: boolean; mark?: string } = {}): Node => ({
  metadata: { name: 'n1', annotations: { ...(o.byUs ? { [CORDONED]: 'true' } : {}), ...(o.mark ? { [MARK]: o.mark } : {}) } },
  spec: { unschedulable: o.cordoned ?? false },
});

const cases: [string, Node, MarkChange, { unschedulable: boolean; annotations: Record<string, string> }][] = [
  [
    'marking a target cordons a schedulable node and notes that kube-tidy did',
    node(),
    { mark: 'target', cordon: true },
    { unschedulable: true, annotations: { [MARK]: 'target', [CORDONED]: 'true' } },
  ],
  [
    "marking a target on a node someone else cordoned notes no cordon of kube-tidy's",
    node({ cordoned: true }),
    { mark: 'target', cordon: true },
    { unschedulable: true, annotations: { [MARK]: 'target' } },
  ],
  [
    'giving back a node kube-tidy cordoned uncordons it',
    node({ cordoned: true, byUs: true, mark: 'target' }),
    { mark: null, cordon: false },
    { unschedulable: false, annotations: {} },
  ],
  [
    "giving back a node someone else cordoned keeps the operator's cordon",
    node({ cordoned: true, mark: 'target' }),
    { mark: null, cordon: false },
    { unschedulable: true, annotations: {} },
  ],
];

describe('defrag node marks', () => {
  for (const [sentence, n, change, want] of cases) {
    it(sentence, () => {
      applyPatch(n, markPatch(n, change));
      expect({ unschedulable: n.spec?.unschedulable, annotations: n.metadata.annotations }).toEqual(want);
    });
  }

  it('an in-flight record is written as JSON and cleared with null', () => {
    const n = node();
    const inFlight = { move: { step: 1 } as never, ownerUids: ['u'], at: 1 };
    expect(markPatch(n, { inFlight }).metadata.annotations[IN_FLIGHT]).toBe(JSON.stringify(inFlight));
    expect(markPatch(n, { inFlight: null }).metadata.annotations).toEqual({ [IN_FLIGHT]: null });
  });
});
