// Who wrote a ConfigMap's key, read from managedFields as the API server records them (the
// shapes below are what kube-apiserver v1.37 answers; checked against the real control plane by
// test/integration/brakes/foreign.test.ts).
import type { V1ConfigMap, V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { describeWriter, FIELD_MANAGER, foreignWriter, ownedAgain } from './written-by.js';

const owning = (manager: string, operation: string, time: string, key = 'ledger.json'): V1ManagedFieldsEntry => ({
  manager,
  operation,
  apiVersion: 'v1',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:data': { '.': {}, [`f:${key}`]: {} } },
  time: new Date(time),
});
const labelsOnly = (manager: string, time: string): V1ManagedFieldsEntry => ({
  manager,
  operation: 'Update',
  fieldsV1: { 'f:metadata': { 'f:labels': { 'f:team': {} } } },
  time: new Date(time),
});
const cm = (...managedFields: V1ManagedFieldsEntry[]): V1ConfigMap => ({ metadata: { name: 'x', managedFields }, data: { 'ledger.json': '{}' } });

describe('foreignWriter', () => {
  it.each([
    { sentence: "a key kube-tidy's manager wrote last is its own", cm: cm(owning(FIELD_MANAGER, 'Update', '2026-11-29T06:00:00Z')), by: undefined },
    {
      sentence: 'a key another tool rewrote (a PUT without a field manager: the client’s user agent) names that tool',
      cm: cm(owning('node-fetch', 'Update', '2026-11-29T06:01:02Z')),
      by: { manager: 'node-fetch', operation: 'Update', time: '2026-11-29T06:01:02Z' },
    },
    {
      sentence: "a person's kubectl edit is foreign, though kube-tidy's entry remains for another field",
      cm: cm(labelsOnly(FIELD_MANAGER, '2026-11-29T05:00:00Z'), owning('kubectl-edit', 'Update', '2026-11-29T06:00:00Z')),
      by: { manager: 'kubectl-edit', operation: 'Update', time: '2026-11-29T06:00:00Z' },
    },
    {
      sentence: 'a server-side apply of the same value co-owns it with kube-tidy: the value is still what kube-tidy wrote',
      cm: cm(owning(FIELD_MANAGER, 'Update', '2026-11-29T05:00:00Z'), owning('kubectl', 'Apply', '2026-11-29T06:00:00Z')),
      by: undefined,
    },
    {
      sentence: 'a forced server-side apply took it from kube-tidy',
      cm: cm(owning('kubectl', 'Apply', '2026-11-29T06:00:00Z')),
      by: { manager: 'kubectl', operation: 'Apply', time: '2026-11-29T06:00:00Z' },
    },
    {
      sentence: 'nobody owns the key (managedFields reset, then a label changed): the newest writer is named',
      cm: cm(labelsOnly('helm', '2026-11-29T04:00:00Z'), labelsOnly('kubectl-label', '2026-11-29T06:00:00Z')),
      by: { manager: 'kubectl-label', operation: 'Update', time: '2026-11-29T06:00:00Z' },
    },
    {
      sentence: 'no managedFields at all (stripped by a write with managedFields: [{}], which may have changed the data too): foreign',
      cm: cm(),
      by: { manager: '(unknown: managedFields stripped)' },
    },
    { sentence: 'no ConfigMap is nobody’s write', cm: undefined, by: undefined },
  ])('$sentence', ({ cm, by }) => {
    expect(foreignWriter(cm, 'ledger.json')).toEqual(by);
  });

  it('reads a time the client left as a string too', () => {
    const entry = { ...owning('curl', 'Update', '2026-11-29T06:00:00Z'), time: '2026-11-29T06:00:00Z' as unknown as Date };
    expect(foreignWriter(cm(entry), 'ledger.json')).toEqual({ manager: 'curl', operation: 'Update', time: '2026-11-29T06:00:00Z' });
  });

  it('is said as a person reads it', () => {
    expect(describeWriter({ manager: 'node-fetch', operation: 'Update', time: '2026-11-29T06:01:02Z' })).toBe('node-fetch (Update at 2026-11-29T06:01:02Z)');
    expect(describeWriter({ manager: 'curl' })).toBe('curl');
  });
});

describe('ownedAgain', () => {
  it('names kube-tidy as the owner of the keys it writes only when the object has no managedFields left', () => {
    const stripped: V1ConfigMap = { metadata: { name: 'x' }, data: { 'ledger.json': '{}' } };
    const sent = ownedAgain(stripped, { 'ledger.json': '{"counts":{}}' });
    expect(sent.managedFields).toEqual([
      { manager: FIELD_MANAGER, operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:ledger.json': {} } } },
    ]);
    // What the API server sends back for it reads as kube-tidy's own write again.
    expect(foreignWriter({ ...stripped, metadata: { name: 'x', managedFields: sent.managedFields } }, 'ledger.json')).toBeUndefined();
    expect(ownedAgain(cm({ manager: 'node-fetch', operation: 'Update', fieldsV1: { 'f:data': { 'f:ledger.json': {} } } }), {})).toEqual({});
  });
});
