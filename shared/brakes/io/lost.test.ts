// When the ledger as read is not trusted (lost.ts), one case per way it can be found. The
// foreign case is issue 44's: a valid, empty ledger written by another tool mid-storm was read
// as the truth and handed every budget out again. On the real control plane:
// test/integration/brakes/unreadable.test.ts and foreign.test.ts.
import type { V1ConfigMap, V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Seen } from '../../kube/configmap-store.js';
import { FIELD_MANAGER } from '../../kube/written-by.js';
import { emptyLedger, rebuiltBlind, type LedgerState } from '../core/ledger.js';
import { lostWhy } from './lost.js';

const EMPTY = '{"counts":{},"holds":{},"trips":{}}';
const by = (manager: string): V1ManagedFieldsEntry => ({
  manager,
  operation: 'Update',
  fieldsV1: { 'f:data': { '.': {}, 'f:ledger.json': {} } },
  time: new Date('2026-11-29T06:01:02Z'),
});
const seen = (o: { uid?: string; manager?: string; value?: LedgerState; created?: string } = {}): Seen<LedgerState> => {
  const cm: V1ConfigMap = {
    metadata: {
      name: 'kube-tidy-brakes',
      uid: o.uid ?? 'u1',
      creationTimestamp: new Date(o.created ?? '2026-11-29T05:00:00Z'),
      ...(o.manager ? { managedFields: [by(o.manager)] } : {}),
    },
    data: { 'ledger.json': EMPTY },
  };
  return { cm, value: o.value ?? emptyLedger(), unreadable: [] };
};

describe('lostWhy', () => {
  it('trusts a ledger kube-tidy wrote last, fresh process or not', () => {
    expect(lostWhy(seen({ manager: FIELD_MANAGER }), undefined)).toBeUndefined();
    expect(lostWhy(seen({ manager: FIELD_MANAGER }), 'u1')).toBeUndefined();
  });

  it('takes a valid ledger another writer rewrote as foreign, naming it, even in a process that never read it', () => {
    for (const known of [undefined, 'u1'])
      expect(lostWhy(seen({ manager: 'node-fetch' }), known)).toEqual({
        found: 'foreign',
        why: 'rewritten by node-fetch (Update at 2026-11-29T06:01:02Z), not by kube-tidy',
        by: { manager: 'node-fetch', operation: 'Update', time: '2026-11-29T06:01:02Z' },
        excerpt: EMPTY,
      });
  });

  it('says unreadable first: what is not a ledger at all', () => {
    const bad = { ...seen({ manager: 'kubectl-edit' }), unreadable: [{ key: 'ledger.json', why: 'not JSON', excerpt: '{' }] };
    expect(lostWhy(bad, undefined)).toMatchObject({ found: 'unreadable' });
  });

  it('says deleted or replaced to a process that read it before, as before', () => {
    expect(lostWhy({ cm: undefined, value: emptyLedger(), unreadable: [] }, 'u1')).toMatchObject({ found: 'deleted' });
    expect(lostWhy(seen({ uid: 'u2', manager: FIELD_MANAGER }), 'u1')).toMatchObject({ found: 'replaced' });
  });

  it("trusts another instance's blind rebuild under a new uid, but not a foreign one's", () => {
    const rebuilt = rebuiltBlind(emptyLedger(), 'deleted', Date.parse('2026-11-29T05:59:00Z'));
    expect(lostWhy(seen({ uid: 'u2', manager: FIELD_MANAGER, value: rebuilt, created: '2026-11-29T06:00:00Z' }), 'u1')).toBeUndefined();
    expect(lostWhy(seen({ uid: 'u2', manager: 'kubectl-create', value: rebuilt, created: '2026-11-29T06:00:00Z' }), 'u1')).toMatchObject({
      found: 'foreign',
    });
  });
});
