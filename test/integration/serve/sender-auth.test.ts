// Sender authentication against the real kube-apiserver as the issuer, as Knative's
// sender identity uses it: ServiceAccount tokens minted with the TokenRequest API for an
// audience, verified with the keys (and the issuer) the API server publishes, fetched over
// the cluster connection of a ServiceAccount that has no RBAC of its own.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { senderAuthFromEnv, type SenderAuth } from '../../../shared/serve/http/auth.js';

const AUDIENCE = 'serving.knative.dev/service/kube-tidy/pod-terminated';
// The harness's --service-account-issuer (test/harness/components.ts).
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

const ns = testNamespace('auth');
const admin = sharedCluster().kubeConfig();
const core = admin.makeApiClient(CoreV1Api);
let auth: SenderAuth;

async function mint(name: string, audiences: string[], expirationSeconds = 600): Promise<string> {
  const r = await core.createNamespacedServiceAccountToken({ name, namespace: ns.name, body: { spec: { audiences, expirationSeconds } } });
  if (!r.status?.token) throw new Error(`no token for ${name}`);
  return r.status.token;
}

/** A cluster connection as a pod of `name` would have it: the API server's CA and its token. */
function connectionAs(token: string): KubeConfig {
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('no cluster');
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters: [cluster], users: [{ name: 'u', token }], contexts: [{ name: 'c', cluster: cluster.name, user: 'u' }], currentContext: 'c' });
  return kc;
}

const env = () => ({ SENDER_AUTH: 'kubernetes', SENDER_AUTH_AUDIENCE: AUDIENCE, SENDER_AUTH_SUBJECTS: `system:serviceaccount:${ns.name}:sender` });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  for (const name of ['sender', 'intruder', 'verifier', 'short-lived'])
    await core.createNamespacedServiceAccount({ namespace: ns.name, body: { metadata: { name } } });
  // The function's own account: no Role, no binding. Reading the issuer's keys needs only the
  // default system:service-account-issuer-discovery binding every ServiceAccount has.
  auth = senderAuthFromEnv(env(), { kubeConfig: connectionAs(await mint('verifier', [])) });
  await auth.warm();
});

describe('kubernetes sender authentication against the real API server', () => {
  it('accepts a token of the allowed ServiceAccount minted for our audience, with the discovered issuer', async () => {
    const result = await auth.authenticate(bearer(await mint('sender', [AUDIENCE])));
    expect(result).toEqual({ ok: true, subject: `system:serviceaccount:${ns.name}:sender`, issuer: ISSUER });
  });

  it('refuses a token of the same ServiceAccount minted for another audience', async () => {
    const result = await auth.authenticate(bearer(await mint('sender', ['serving.knative.dev/service/kube-tidy/sweep'])));
    expect(result).toMatchObject({ ok: false, status: 401, why: 'audience not accepted' });
  });

  it("refuses a token for the API server's own audience (what a pod's default token carries)", async () => {
    const result = await auth.authenticate(bearer(await mint('sender', [])));
    expect(result).toMatchObject({ ok: false, status: 401, why: 'audience not accepted' });
  });

  it('refuses a token of a ServiceAccount not in the allowlist, though minted for our audience', async () => {
    const result = await auth.authenticate(bearer(await mint('intruder', [AUDIENCE])));
    expect(result).toMatchObject({ ok: false, status: 401, why: `sender "system:serviceaccount:${ns.name}:intruder" is not allowed (SENDER_AUTH_SUBJECTS)` });
  });

  it("refuses the harness admin's static token, which is no JWT", async () => {
    const user = admin.getCurrentUser();
    expect(await auth.authenticate(bearer(user?.token ?? 'missing'))).toMatchObject({ ok: false, status: 401 });
  });

  it('answers 503, not 401, when the API server refuses to hand out its keys', async () => {
    const blind = senderAuthFromEnv(env(), { kubeConfig: connectionAs('not-a-valid-token') });
    const result = await blind.authenticate(bearer(await mint('sender', [AUDIENCE])));
    expect(result).toMatchObject({ ok: false, status: 503, why: expect.stringMatching(/issuer discovery failed: .*HTTP 401/) });
  });

  it('takes a fixed SENDER_AUTH_ISSUER instead of discovering it, and refuses tokens of any other', async () => {
    const fixed = senderAuthFromEnv({ ...env(), SENDER_AUTH_ISSUER: 'https://other.issuer.example' }, { kubeConfig: connectionAs(await mint('verifier', [])) });
    expect(await fixed.authenticate(bearer(await mint('sender', [AUDIENCE])))).toMatchObject({ ok: false, status: 401, why: 'issuer not accepted' });
  });

  // A limit of verifying offline, stated in docs/safety.md: the API server would refuse this
  // token (its ServiceAccount is gone), the signature and claims are still valid until exp.
  it('still accepts a token of a deleted ServiceAccount until it expires', async () => {
    const token = await mint('short-lived', [AUDIENCE]);
    await core.deleteNamespacedServiceAccount({ name: 'short-lived', namespace: ns.name });
    const anyone = senderAuthFromEnv({ SENDER_AUTH: 'kubernetes', SENDER_AUTH_AUDIENCE: AUDIENCE }, { kubeConfig: connectionAs(await mint('verifier', [])) });
    expect(await anyone.authenticate(bearer(token))).toMatchObject({ ok: true, subject: `system:serviceaccount:${ns.name}:short-lived` });
  });
});
