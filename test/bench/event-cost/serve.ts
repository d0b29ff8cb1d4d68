// How the storm's kube-tidy processes run (EVENT_COST_SERVE): `bundle` (the default) is the
// production bundle as the image, the demo and `npm run serve` run it (the development serving
// is the production serving); `framework` is `functions-framework --target=<target>` over dist/,
// the Cloud Functions entry, as the outside measurement served podTerminated. Both with
// the image's heap limit and the target's own ServiceAccount. Each process is left to go quiet
// (its warm-up: the client, the sender check's keys) before it is measured, and with
// EVENT_COST_CPU_PROFILE=1 writes a V8 CPU profile when it stops.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLE_FILE } from '../../../infra/bundle/build.js';
import { IMAGE_NODE_OPTIONS } from '../../../infra/bundle/heap.js';
import { cpuBreakdown, topSelf } from '../cpu-profile.js';
import { bundled } from '../scale.js';
import { cpuSeconds } from '../scale/snapshot.js';
import { devTarget, DIST_ENTRY, type SweepProcess } from '../scale/sweep-process.js';

export type ServeMode = 'bundle' | 'framework';

export interface Served extends SweepProcess {
  /** Where the V8 profile goes (EVENT_COST_CPU_PROFILE=1), read after `stop`. */
  profileDir?: string;
}

export const serveMode = (value = process.env.EVENT_COST_SERVE ?? 'bundle'): ServeMode => {
  if (value !== 'framework' && value !== 'bundle') throw new Error(`EVENT_COST_SERVE: bundle or framework, not ${value}`);
  return value;
};

export const servedAs = (mode: ServeMode): string =>
  mode === 'framework'
    ? 'functions-framework --target=<target> over dist/ (the Cloud Functions entry), Node 22, the image heap limit, the target ServiceAccount'
    : 'the production bundle (the image, the demo, npm run serve) on Node 22, the image heap limit, the target ServiceAccount';

/** `target` served as `mode` says, with `env` (its policy, kubeconfig, sender check...); quiet before it returns. */
export async function serve(mode: ServeMode, target: string, env: Record<string, string>): Promise<Served> {
  const profileDir = process.env.EVENT_COST_CPU_PROFILE === '1' ? mkdtempSync(join(tmpdir(), 'kube-tidy-storm-cpu-')) : undefined;
  const nodeOptions = [IMAGE_NODE_OPTIONS, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])].join(' ');
  const all = { ...env, NODE_OPTIONS: nodeOptions };
  const fn = mode === 'framework' ? await devTarget(target, all) : await bundled({ ...all, FUNCTION_TARGET: target });
  await quiet(fn.pid);
  return { ...fn, ...(profileDir ? { profileDir } : {}) };
}

/** The profile of a stopped process by area, and its costliest functions by self time. */
export function profileOf(served: Served, mode: ServeMode, removed: number) {
  if (!served.profileDir) return undefined;
  const code = mode === 'framework' ? DIST_ENTRY : BUNDLE_FILE;
  const areas = cpuBreakdown(served.profileDir, code);
  return {
    note: 'the whole process life, its start included',
    busyMsPerRemoval: Math.round((areas.busySeconds * 1e4) / Math.max(1, removed)) / 10,
    ...areas,
    topSelf: topSelf(served.profileDir, code, 25),
  };
}

/** Waits until `pid` uses under 2% of a core over two half-second windows in a row (at most 30 s). */
async function quiet(pid: number): Promise<void> {
  let calm = 0;
  let last = cpuSeconds(pid);
  for (let i = 0; i < 60 && calm < 2; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuSeconds(pid);
    calm = now - last < 0.01 ? calm + 1 : 0;
    last = now;
  }
}
