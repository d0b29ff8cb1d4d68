// The API server's audit log as the oracle of what was SENT to it: every write request
// (create/update/patch/delete/deletecollection, subresources such as pods/eviction and
// pods/status, custom resources) is logged at Metadata level once answered, whether the API
// server accepted it or refused it (RBAC 403, validation 422, precondition 409). A test that
// asks "did the function write anything it should not have" reads this, not the cluster's
// state afterwards: a refused DELETE of a namespace leaves no trace in the cluster, but it was
// still sent.
import { closeSync, existsSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubeRequest, type Endpoint } from './kube-http.js';
import { waitFor } from './wait.js';

export const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection'] as const;

/**
 * Writes only, answered stage only, Metadata level (no bodies: cheap, and no secrets in the
 * log) except for writes to pods and every DELETE, whose request body is kept: a DELETE's or
 * an eviction's preconditions are in it, and a DELETE may ask for a dry run in its body
 * (DeleteOptions.dryRun) rather than in the query. Leases are left out: the API server and
 * kwok renew them every few seconds.
 */
const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    resources: [{ group: coordination.k8s.io, resources: [leases] }]
  - level: Request
    resources: [{ group: "", resources: [pods, pods/eviction] }]
    verbs: [${WRITE_VERBS.join(', ')}]
  - level: Request
    verbs: [delete, deletecollection]
  - level: Metadata
    verbs: [${WRITE_VERBS.join(', ')}]
  - level: None
`;

/** The kube-apiserver flags that turn the audit log on, the policy written into `dir`. */
export function auditArgs(dir: string): { args: string[]; logPath: string } {
  const policyFile = join(dir, 'audit-policy.yaml');
  writeFileSync(policyFile, POLICY);
  const logPath = join(dir, 'audit.log');
  return {
    logPath,
    // No rotation (the file is the run's record) and blocking mode: an event is written before
    // the request's goroutine moves on, so it is there by the time a later barrier is.
    args: [
      `--audit-policy-file=${policyFile}`,
      `--audit-log-path=${logPath}`,
      '--audit-log-format=json',
      '--audit-log-mode=blocking',
      '--audit-log-maxbackup=0',
    ],
  };
}

/** One write as the API server saw it. */
export interface AuditWrite {
  verb: string;
  requestURI: string;
  user: string;
  groups: string[];
  /** The HTTP status the API server answered (403 for RBAC, 409 for a precondition, ...). */
  code: number;
  /** Sent with dryRun=All: validated and admitted, never persisted. */
  dryRun: boolean;
  resource?: string;
  subresource?: string;
  apiGroup?: string;
  namespace?: string;
  name?: string;
  userAgent?: string;
  /** For DELETEs and evictions of pods: the preconditions the request carried. */
  preconditions?: { uid?: string; resourceVersion?: string };
  at: string;
}

interface RawEvent {
  stage?: string;
  verb: string;
  requestURI: string;
  user?: { username?: string; groups?: string[] };
  userAgent?: string;
  objectRef?: { resource?: string; subresource?: string; apiGroup?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
  requestObject?: { preconditions?: Preconditions; dryRun?: string[]; deleteOptions?: { preconditions?: Preconditions; dryRun?: string[] } };
}

type Preconditions = { uid?: string; resourceVersion?: string };

function toWrite(e: RawEvent): AuditWrite {
  const query = new URL(e.requestURI, 'https://x').searchParams;
  const ref = e.objectRef ?? {};
  const preconditions = e.requestObject?.preconditions ?? e.requestObject?.deleteOptions?.preconditions;
  return {
    verb: e.verb,
    requestURI: e.requestURI,
    user: e.user?.username ?? '',
    groups: e.user?.groups ?? [],
    code: e.responseStatus?.code ?? 0,
    dryRun: query.getAll('dryRun').includes('All') || [...(e.requestObject?.dryRun ?? []), ...(e.requestObject?.deleteOptions?.dryRun ?? [])].includes('All'),
    ...(ref.resource ? { resource: ref.resource } : {}),
    ...(ref.subresource ? { subresource: ref.subresource } : {}),
    ...(ref.apiGroup ? { apiGroup: ref.apiGroup } : {}),
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
    ...(ref.name ? { name: ref.name } : {}),
    ...(e.userAgent ? { userAgent: e.userAgent } : {}),
    ...(ref.resource === 'pods' && (e.verb === 'delete' || ref.subresource === 'eviction') ? { preconditions: preconditions ?? {} } : {}),
    at: e.requestReceivedTimestamp ?? '',
  };
}

/** A position in the log; `since(mark)` answers what was logged after it. */
export type AuditMark = number;

/**
 * Not the control plane's own work. A namespace a test creates is filled by controllers
 * (kube-root-ca.crt by root-ca-cert-publisher, the default ServiceAccount by
 * service-account-controller) a moment later, whenever they get to it; a test asking "did
 * the program under test write here" leaves those out by their writer, not by timing.
 */
export const notControlPlane = (w: AuditWrite): boolean =>
  !w.user.startsWith('system:serviceaccount:kube-system:') && !['system:kube-controller-manager', 'system:kube-scheduler', 'system:apiserver'].includes(w.user);

let barriers = 0;

export class AuditLog {
  constructor(
    readonly path: string,
    /** An admin endpoint of the same cluster, for barriers. */
    private readonly endpoint?: Endpoint,
  ) {}

  mark(): AuditMark {
    return existsSync(this.path) ? statSync(this.path).size : 0;
  }

  /** Every write logged after `mark`, in the order the API server logged them. */
  since(mark: AuditMark): AuditWrite[] {
    if (!existsSync(this.path)) return [];
    const size = statSync(this.path).size;
    if (size <= mark) return [];
    // One byte before the mark too: a mark taken while the API server was half way through a
    // line falls inside it, and that line (logged before the mark) is skipped whole.
    const from = Math.max(0, mark - 1);
    const buf = Buffer.alloc(size - from);
    const fd = openSync(this.path, 'r');
    try {
      readSync(fd, buf, 0, buf.length, from);
    } finally {
      closeSync(fd);
    }
    let text = buf.toString('utf8');
    if (mark > 0) text = text.startsWith('\n') ? text.slice(1) : text.slice(text.indexOf('\n') + 1);
    // A line still being written has no newline yet: it belongs to the next read.
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    return complete
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as RawEvent)
      .filter((e) => (e.stage ?? 'ResponseComplete') === 'ResponseComplete' || e.stage === 'Panic')
      .map(toWrite);
  }

  /**
   * Waits until everything sent before this call is in the log: a dry-run DELETE of a
   * ConfigMap that does not exist, by the admin (a 404 that changes nothing, but a write verb,
   * so it is logged, name in the URI), then the wait for its own line. Requests answered
   * before the barrier was sent are logged before it.
   */
  async barrier(): Promise<void> {
    if (!this.endpoint) throw new Error('AuditLog.barrier needs the admin endpoint');
    const from = this.mark();
    const name = `audit-barrier-${process.pid}-${++barriers}`;
    const reply = await kubeRequest(this.endpoint, 'DELETE', `/api/v1/namespaces/default/configmaps/${name}?dryRun=All`);
    if (reply.status !== 404) throw new Error(`audit barrier: expected 404, got ${reply.status} ${reply.body}`);
    await waitFor('the audit barrier in the log', async () => this.since(from).some((w) => w.requestURI.includes(name)), { timeoutMs: 10_000, intervalMs: 5 });
  }

  /** Writes since `mark` after a barrier: the usual way to ask "what did that request cause". */
  async settledSince(mark: AuditMark): Promise<AuditWrite[]> {
    await this.barrier();
    return this.since(mark).filter((w) => !w.requestURI.includes('/configmaps/audit-barrier-'));
  }
}

/** For messages: one line per write. */
export const describeWrite = (w: AuditWrite): string => `${w.verb} ${w.requestURI} by ${w.user} -> ${w.code}${w.dryRun ? ' (dry run)' : ''}`;
