// `helm test` for a standalone release (the chart's templates/tests): does the release work?
// Two checks, both must pass:
//   --lease NAMESPACE/NAME  the leader-election Lease is held (holderIdentity set) and its
//                           claim has not run out (renewTime + leaseDurationSeconds > now);
//   --metrics-url URL       GET answers 200 with kube-tidy's metrics (kube_tidy_ lines).
// Exit 0: both pass. 1: a check failed (the release does not work). 2: could not check (bad
// arguments, no credentials, the API server refused or failed the read).
// renewTime is the holder's clock and `now` this pod's: skew between nodes moves the verdict
// by the skew, which is fine for a smoke test (the election itself never compares clocks).
// Credentials as everywhere (shared/kube/config.ts): KUBECONFIG, else the pod's service
// account; the Lease is read through the project's one Lease client (shared/kube/lease.ts).
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadKubeConfig } from '../../kube/config.js';
import { leaseClient } from '../../kube/lease.js';
import { namespaceName, objectName } from '../../model/pod-schema.js';
import type { LeaseSpec } from './core/election.js';

const TIMEOUT_MS = 10_000;

const Args = z.object({
  lease: z.string().transform((s, ctx) => {
    const [namespace = '', name = '', ...rest] = s.split('/');
    const ns = namespaceName.safeParse(namespace);
    const n = objectName.safeParse(name);
    if (rest.length || !ns.success || !n.success) {
      ctx.addIssue({ code: 'custom', message: `"${s}" is not NAMESPACE/NAME` });
      return z.NEVER;
    }
    return { namespace, name };
  }),
  'metrics-url': z.url({ protocol: /^https?$/ }),
});

/** Why the Lease shows no working leader, or undefined when it does. */
function leaseProblem(spec: LeaseSpec | undefined, now: number): string | undefined {
  if (!spec) return 'the Lease does not exist: no replica has ever led';
  if (!spec.holderIdentity) return 'the Lease has no holder: the last leader released it and none took over';
  if (!spec.renewTime || !spec.leaseDurationSeconds) return `the Lease held by ${spec.holderIdentity} has no renewTime or leaseDurationSeconds`;
  const expires = Date.parse(spec.renewTime) + spec.leaseDurationSeconds * 1000;
  if (Number.isNaN(expires)) return `the Lease's renewTime "${spec.renewTime}" is not a time`;
  if (expires <= now)
    return `the Lease held by ${spec.holderIdentity} expired ${Math.round((now - expires) / 1000)} s ago (renewed ${spec.renewTime}, lasts ${spec.leaseDurationSeconds} s): the leader stopped renewing`;
  return undefined;
}

/** Why the /metrics answer is not kube-tidy's, or undefined when it is. */
function metricsProblem(status: number, body: string): string | undefined {
  if (status !== 200) return `answered ${status}, not 200`;
  if (!/^kube_tidy_/m.test(body)) return 'answered 200 without any kube_tidy_ metric';
  return undefined;
}

async function main(): Promise<number> {
  let args: z.output<typeof Args>;
  try {
    const { values } = parseArgs({ options: { lease: { type: 'string' }, 'metrics-url': { type: 'string' } }, strict: true });
    const parsed = Args.safeParse(values, { error: (i) => (i.input === undefined ? 'required' : undefined) });
    if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '));
    args = parsed.data;
  } catch (e) {
    console.error(`release-check: cannot check: ${(e as Error).message}`);
    return 2;
  }
  const failures: string[] = [];
  const ref = `${args.lease.namespace}/${args.lease.name}`;
  try {
    const observed = await leaseClient(loadKubeConfig(), args.lease, { timeoutMs: TIMEOUT_MS }).read();
    const problem = leaseProblem(observed?.spec, Date.now());
    if (problem) failures.push(`Lease ${ref}: ${problem}`);
    else console.log(`ok: Lease ${ref} is held by ${observed!.spec.holderIdentity}, renewed ${observed!.spec.renewTime}`);
  } catch (e) {
    console.error(`release-check: cannot check: reading Lease ${ref}: ${(e as Error).message.split('\n')[0]}`);
    return 2;
  }
  const url = args['metrics-url'];
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    const problem = metricsProblem(res.status, await res.text());
    if (problem) failures.push(`GET ${url}: ${problem}`);
    else console.log(`ok: GET ${url} answered 200 with kube_tidy_ metrics`);
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    failures.push(`GET ${url}: no answer (${cause ?? (e as Error).message})`);
  }
  for (const f of failures) console.error(`FAILED: ${f}`);
  return failures.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`release-check: cannot check: ${(e as Error).stack ?? String(e)}`);
    process.exit(2);
  },
);
