import { spawn } from 'node:child_process';
import type { Node, Pod } from '../../shared/model/objects.js';
import type { Cluster } from './generate-cluster.js';

// Runs the real descheduler (infra/local/descheduler/oracle) over a batch of cases: one JSON
// line per case in, one line per case out, in the same order.

export interface OracleCase {
  id: string;
  policy: string;
  now: string;
  pods: Pod[];
  nodes: Node[];
  cluster: Omit<Cluster, 'pods' | 'nodes'>;
}

export interface OracleEviction {
  namespace: string;
  name: string;
  profile: string;
  strategy: string;
}

export interface OracleResult {
  id: string;
  evicted: OracleEviction[];
  policyError?: string;
  error?: string;
  retries: number;
}

function line(c: OracleCase): string {
  return JSON.stringify({
    id: c.id,
    policy: c.policy,
    now: c.now,
    pods: c.pods,
    nodes: c.nodes,
    namespaces: c.cluster.namespaces,
    priorityClasses: c.cluster.priorityClasses.map((p) => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', ...p })),
    pdbs: c.cluster.pdbs,
    pvcs: c.cluster.pvcs.map((v) => ({ metadata: { namespace: v.namespace, name: v.name }, spec: { storageClassName: v.storageClassName } })),
  });
}

/** "triggered by <profile>/<strategy>: <reason>", as the descheduler annotates its Evictions. */
const BY = /^triggered by ([^/]*)\/([^:]*):/;

export async function runOracle(bin: string, cases: readonly OracleCase[], workers = 8): Promise<OracleResult[]> {
  const child = spawn(bin, [`-workers=${workers}`], { stdio: ['pipe', 'pipe', 'inherit'] });
  const out: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  const done = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? -1));
  });
  for (const c of cases) {
    if (!child.stdin.write(line(c) + '\n')) await new Promise((r) => child.stdin.once('drain', r));
  }
  child.stdin.end();
  const code = await done;
  if (code !== 0) throw new Error(`oracle exited ${code}`);
  const results = Buffer.concat(out)
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const raw = JSON.parse(l) as Omit<OracleResult, 'evicted'> & { evicted?: { namespace: string; name: string; by: string }[] };
      const evicted = (raw.evicted ?? []).map((e) => {
        const m = BY.exec(e.by);
        return { namespace: e.namespace, name: e.name, profile: m?.[1] ?? '', strategy: m?.[2] ?? '' };
      });
      return { ...raw, evicted };
    });
  if (results.length !== cases.length) throw new Error(`oracle answered ${results.length} of ${cases.length} cases`);
  return results;
}
