import type { KubeConfig } from '@kubernetes/client-node';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defragStep, type StepReport } from '../../../shared/defrag/io/step.js';
import { defragIo, STEP_DEFAULTS } from './scenario.js';

// Drives kube-tidy's defragmentation the way a schedule would (one step per call, nothing
// kept between calls but what the steps wrote on the nodes) until it converges; and runs
// the descheduler's HighNodeUtilization once against a cluster, for the comparison.

export interface Converged {
  steps: number;
  /** Nodes the steps reported marking freed (what the metrics count). */
  nodesFreed: number;
  evictions: number;
  asPlanned: number;
  drifted: number;
  blocked: number;
  ms: number;
  last: StepReport;
}

export async function converge(kc: KubeConfig, maxSteps = 400): Promise<Converged> {
  const io = defragIo(kc, { dryRun: false });
  const started = Date.now();
  const out = { steps: 0, evictions: 0, asPlanned: 0, drifted: 0, blocked: 0, nodesFreed: 0 };
  for (;;) {
    if (out.steps++ > maxSteps) throw new Error(`no convergence after ${maxSteps} steps`);
    const r = await defragStep(io, { ...STEP_DEFAULTS, now: Date.now() });
    if (r.verified?.asPlanned) out.asPlanned++;
    else if (r.verified) out.drifted++;
    if (r.outcome === 'evicted') out.evictions++;
    out.nodesFreed += r.nodesFreed ?? 0;
    if (r.outcome === 'blocked' || r.outcome === 'stale') out.blocked++;
    if (r.outcome === 'converged') return { ...out, ms: Date.now() - started, last: r };
    if (r.outcome !== 'evicted') await new Promise((res) => setTimeout(res, 150));
  }
}

/** HighNodeUtilization once (descheduling interval 0 runs a single cycle and exits). */
export function runHighNodeUtilization(bin: string, kubeconfigPath: string, dir: string): { ms: number; evictions: number; log: string } {
  const policy = join(dir, 'hnu-policy.yaml');
  writeFileSync(
    policy,
    [
      'apiVersion: descheduler/v1alpha2',
      'kind: DeschedulerPolicy',
      'profiles:',
      '  - name: pack',
      '    pluginConfig:',
      '      - name: DefaultEvictor',
      '        args: {nodeFit: true}',
      '      - name: HighNodeUtilization',
      '        args: {thresholds: {cpu: 20, memory: 20}}',
      '    plugins:',
      '      balance: {enabled: [HighNodeUtilization]}',
      '',
    ].join('\n'),
  );
  const started = Date.now();
  const r = spawnSync(bin, [`--kubeconfig=${kubeconfigPath}`, `--policy-config-file=${policy}`, '--descheduling-interval=0s', '--secure-port=0', '--v=3'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  const log = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) throw new Error(`descheduler exited ${r.status ?? r.signal}: ${log.slice(-2000)}`);
  const evictions = (log.match(/"Evicted pod"/g) ?? []).length;
  return { ms: Date.now() - started, evictions, log };
}
