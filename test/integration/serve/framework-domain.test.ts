// functions-framework runs each request inside a node:domain; kube-tidy's adapter
// (shared/serve/http/functions-framework.ts) leaves it at once, because a domain entered makes
// every promise and callback of a pass pay for it (issue 35). Seen from inside the work: what
// the target records while it handles a request is recorded outside any domain.
import type { RequestListener } from 'node:http';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import supertest from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { httpFunction } from '../../../shared/serve/http/functions-framework.js';
import { TARGETS } from '../../../functions/index.js';
import type { TargetSpec } from '../../../shared/serve/target.js';
import { runtimeFor } from '../functions/setup.js';

const POLICY = {
  apiVersion: 'descheduler/v1alpha2',
  kind: 'DeschedulerPolicy',
  profiles: [{ name: 'p', pluginConfig: [{ name: 'RemoveFailedPods', args: {} }], plugins: { deschedule: { enabled: ['RemoveFailedPods'] } } }],
};

describe('a request served by functions-framework', () => {
  it("does its work outside the framework's domain", async () => {
    const spec = (await TARGETS.podTerminated()) as TargetSpec<unknown>;
    const rt = await runtimeFor(POLICY, { SENDER_AUTH: 'none' });
    const domains: unknown[] = [];
    const record = rt.metrics.record.bind(rt.metrics);
    vi.spyOn(rt.metrics, 'record').mockImplementation((...args) => {
      domains.push((process as { domain?: unknown }).domain);
      record(...args);
    });
    http('domain-left', httpFunction(spec, rt));
    const agent = supertest(getTestServer('domain-left').listeners('request')[0] as RequestListener);
    // A running pod's event: decided on the event's copy, nothing to do, no request to the API server.
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'default', name: 'p', uid: 'u1' }, status: { phase: 'Running' } };
    const res = await agent.post('/').set('content-type', 'application/json').send(pod);
    expect(res.status).toBe(200);
    // The request's own metrics are recorded at its end, after every await of its work.
    expect(domains.length).toBeGreaterThan(0);
    expect(domains.filter((d) => d !== undefined && d !== null)).toEqual([]);
  });
});
