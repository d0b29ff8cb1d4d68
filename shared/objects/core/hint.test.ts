import { describe, expect, it } from 'vitest';
import { ObjectRuleSchema } from '../../policy/objects-schema.js';
import { anyRuleMatches } from './decide.js';
import { controlledInCopy, hintOf } from './hint.js';

const rules = [
  ObjectRuleSchema.parse({ name: 'jobs', kind: 'Job', minAge: '1h', namespaces: { exclude: ['prod'] }, labelSelector: { matchLabels: { tier: 'batch' } } }),
  ObjectRuleSchema.parse({ name: 'claims', kind: 'PersistentVolumeClaim', minAge: '24h', mode: 'report' }),
];
const meta = (namespace = 'ml', labels: Record<string, string> = { tier: 'batch' }) => ({ name: 'a', namespace, uid: 'u', labels });
const cond = (type: string, status = 'True', reason?: string) => ({
  conditions: [{ type, status, ...(reason ? { reason } : {}), lastTransitionTime: '2026-01-01T00:00:00Z' }],
});

describe("an event's copy as a hint: could any rule select it?", () => {
  it.each([
    {
      sentence: 'a Complete Job a rule names: yes (the stored one decides)',
      kind: 'Job' as const,
      o: { metadata: meta(), status: cond('Complete') },
      want: true,
    },
    { sentence: 'a Failed Job: yes', kind: 'Job' as const, o: { metadata: meta(), status: cond('Failed') }, want: true },
    { sentence: 'a running Job: no', kind: 'Job' as const, o: { metadata: meta(), status: { active: 1 } }, want: false },
    { sentence: 'a Complete=False Job: no', kind: 'Job' as const, o: { metadata: meta(), status: cond('Complete', 'False') }, want: false },
    {
      sentence: 'a Complete Job in a namespace the rule excludes: no',
      kind: 'Job' as const,
      o: { metadata: meta('prod'), status: cond('Complete') },
      want: false,
    },
    { sentence: "a Complete Job without the rule's labels: no", kind: 'Job' as const, o: { metadata: meta('ml', {}), status: cond('Complete') }, want: false },
    {
      sentence: 'an Unused claim: yes',
      kind: 'PersistentVolumeClaim' as const,
      o: { metadata: meta('ml', {}), status: cond('Unused', 'True', 'NoPodsUsingPVC') },
      want: true,
    },
    {
      sentence: 'a claim in use: no',
      kind: 'PersistentVolumeClaim' as const,
      o: { metadata: meta('ml', {}), status: cond('Unused', 'False', 'PodUsingPVC') },
      want: false,
    },
  ])('$sentence', ({ kind, o, want }) => {
    const hint = hintOf(kind, o);
    expect(hint).toBeDefined();
    expect(anyRuleMatches(rules, hint!)).toBe(want);
  });

  it.each([
    { sentence: 'no namespace', o: { metadata: { name: 'a' } } },
    { sentence: 'labels that are not strings', o: { metadata: { namespace: 'ml', labels: { tier: 1 } } } },
    { sentence: 'conditions that are not a list', o: { metadata: { namespace: 'ml' }, status: { conditions: {} } } },
    { sentence: 'a condition without a status', o: { metadata: { namespace: 'ml' }, status: { conditions: [{ type: 'Complete' }] } } },
    { sentence: 'a status that is not an object', o: { metadata: { namespace: 'ml' }, status: 'done' } },
  ])('a copy with $sentence is no hint (the stored object decides)', ({ o }) => {
    expect(hintOf('Job', o as never)).toBeUndefined();
  });
});

describe('controlledInCopy', () => {
  const ref = (controller?: unknown) => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    name: 'nightly',
    uid: 'u',
    ...(controller === undefined ? {} : { controller }),
  });
  it.each([
    { sentence: 'a controller owner: yes', refs: [ref(true)], want: true },
    { sentence: 'an owner that is not its controller: no', refs: [ref(false), ref()], want: false },
    { sentence: 'no owner: no', refs: undefined, want: false },
    { sentence: "a controller that is only a string 'true': no", refs: [ref('true')], want: false },
    { sentence: 'owner references that are not a list: no', refs: { controller: true }, want: false },
    { sentence: 'an entry that is not an object: no', refs: [null, 'x'], want: false },
  ])('$sentence', ({ refs, want }) => {
    expect(controlledInCopy({ metadata: { namespace: 'ml', ...(refs === undefined ? {} : { ownerReferences: refs }) } })).toBe(want);
  });
});
