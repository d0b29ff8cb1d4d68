import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import type { Brakes } from './brakes.js';
import type { ClusterWriter } from '../../kube/writer.js';
import { budgetDeferral } from '../core/deferral.js';
import { chargesOf } from '../core/ledger.js';
import { tellDeferral } from './tell.js';
import { MetricsRecorder } from '../../metrics/recorder.js';

describe('a storm of deferrals', () => {
  it('is one log line and one Event per budget and window, whatever the number of pods', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const events: string[] = [];
    const writer = {
      recordNamespaceEvent: async (_ns: string, e: { once: string }) => (events.push(e.once), { recorded: true, name: e.once }),
    } as unknown as ClusterWriter;
    const brakes = { namespace: 'kube-tidy', told: new Set<string>(), metrics: MetricsRecorder.off() } as Brakes;
    const meter = { scope: 'namespace' as const, max: 5, windowMs: 900_000, name: 'maxNoOfPodsToEvictPerNamespace' };
    const now = Date.UTC(2026, 10, 25, 12, 1);
    const inWindow = (namespace: string, at: number) => budgetDeferral(chargesOf([meter], { namespace }, at)[0]!, { namespace });
    for (let i = 0; i < 60; i++) await tellDeferral(writer, log, brakes, inWindow('storm-ml', now + i), 'event');
    await tellDeferral(writer, log, brakes, inWindow('storm-ml', now + 900_000), 'event');
    await tellDeferral(writer, log, brakes, inWindow('storm-other', now), 'event');
    const said = lines.map((l) => JSON.parse(l) as { msg: string; key?: string; freesAt?: string });
    expect(said.map((l) => `${l.key} ${l.freesAt}`)).toEqual([
      'storm-ml 2026-11-25T12:15:00.000Z',
      'storm-ml 2026-11-25T12:30:00.000Z',
      'storm-other 2026-11-25T12:15:00.000Z',
    ]);
    expect(said[0]!.msg).toContain('deferred: maxNoOfPodsToEvictPerNamespace (5 per 15m in namespace storm-ml) is spent');
    expect(events).toHaveLength(3);
  });
});
