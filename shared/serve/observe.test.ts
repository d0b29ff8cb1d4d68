// The wrapper hands every answer to the target's own `observe` (how each family's metrics
// are recorded), and a refused request to none.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { pino } from 'pino';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { startRuntime } from '../runtime/runtime.js';
import { httpFunction } from './http/functions-framework.js';
import { defineTarget, type Answer } from './target.js';
import { offlineKubeconfig } from '../../test/fixtures/offline.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-observe-'));
// Parsed, never dialled.
const kubeconfig = offlineKubeconfig(dir);

describe('a target’s observe', () => {
  it('gets the answer of every handled request, and nothing for a refused one', async () => {
    const seen: Answer[] = [];
    const probe = defineTarget({
      name: 'probe',
      accepts: { ticks: true, plain: 'tick', hint: 'probe takes ticks' },
      needs: { policy: false, cluster: 'on-demand' },
      setup: () => ({}),
      handle: async () => ({ outcome: 'probed', workers: 2 }),
      observe: (answer) => void seen.push(answer),
    });
    const rt = await startRuntime({ KUBECONFIG: kubeconfig }, { log: pino({ level: 'silent' }) }, { lazyKube: true, needsPolicy: false });
    http('observe-probe', httpFunction(probe, rt));
    const agent = supertest(getTestServer('observe-probe'));
    expect((await agent.post('/').set('content-type', 'application/json').send('{}')).status).toBe(200);
    expect(seen).toEqual([{ outcome: 'probed', workers: 2 }]);
    // A pod event with no pod in it: refused (4xx) before any handler runs.
    const refused = await agent
      .post('/')
      .set({ 'content-type': 'application/json', 'ce-specversion': '1.0', 'ce-type': 'dev.knative.apiserver.resource.add', 'ce-id': '1', 'ce-source': 'test' })
      .send('{}');
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(seen).toHaveLength(1);
  });
});
