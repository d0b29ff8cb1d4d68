import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startRuntime } from '../../runtime/runtime.js';
import { senderAuthOf } from './senders.js';
import { offlineKubeconfig, offlinePolicy } from '../../../test/fixtures/offline.js';

// The sender check a serving process builds from its environment, beside a runtime that stays lazy.

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-senders-'));
const policy = offlinePolicy(dir);
// Parsed, never dialled: nothing here makes a request.
const kubeconfig = offlineKubeconfig(dir);
const silent = { log: pino({ level: 'silent' }) };

describe('senderAuthOf', () => {
  it('with lazyKube and Kubernetes sender authentication, the client still loads only when asked (keys are fetched on first use)', async () => {
    const rt = await startRuntime(
      { POLICY_FILE: policy, KUBECONFIG: kubeconfig, SENDER_AUTH: 'kubernetes', SENDER_AUTH_AUDIENCE: 'serving.knative.dev/service/kube-tidy/pod-terminated' },
      silent,
      { lazyKube: true },
    );
    const auth = senderAuthOf(rt);
    expect(auth.platform).toBe('kubernetes');
    expect(() => rt.clients).toThrow('await rt.kubeReady() first');
  });

  it('refuses a bad configuration, naming the problem', async () => {
    const rt = await startRuntime({ POLICY_FILE: policy, KUBECONFIG: kubeconfig, SENDER_AUTH: 'oidc' }, silent, { lazyKube: true });
    expect(() => senderAuthOf(rt)).toThrow(/SENDER_AUTH/);
  });
});
