// A kind a ttl rule names that cannot be read (here: a group the cluster does not serve) is
// logged once per pass, every pass (docs/ttl.md "Kinds, discovery and RBAC"): nothing keeps it
// said for the process's life, so a CRD removed later, or an RBAC grant taken back, is said at
// the next pass again. On the real control plane.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { runObjectsPass } from '../../../shared/objects/index.js';
import { objectsSuite } from '../objects/handle.js';

const { ns, handle } = objectsSuite('ttl-unavailable');

describe('TTL on any kind: a kind that cannot be read', () => {
  it('is logged once in each of three passes of one process, and answered in each', async () => {
    const lines: { msg: string; kinds: { kind: string }[] }[] = [];
    const log = pino({ level: 'warn' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    const kinds = [
      { version: 'v1', kind: 'ConfigMap' },
      { group: 'example.com', version: 'v1', kind: 'Widget' },
    ];
    const h = handle({ policy: () => ({ kubeTidy: { ttl: [{ name: 'r', kinds, namespaces: { include: [ns.name] } }] } }) });
    for (let pass = 0; pass < 3; pass++) {
      const s = await runObjectsPass({ ...h.handle, log }, { origin: 'sweep', dryRun: true });
      expect(s.unavailable?.map((u) => u.kind)).toEqual(['example.com/v1/Widget']);
    }
    expect(lines.map((l) => l.kinds.map((k) => k.kind))).toEqual([['example.com/v1/Widget'], ['example.com/v1/Widget'], ['example.com/v1/Widget']]);
  });
});
