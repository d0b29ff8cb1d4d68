// Fetches the OpenReports CRDs (openreports.io/v1alpha1 Report and ClusterReport) from their Go
// module, github.com/openreports/reports-api, into the cache, once per version: the test
// control plane installs them from there (test/harness/crds.ts `openReportsCrdsDir`), so the
// schema the API server validates kube-tidy's reports against is the module's own, never a
// copy in this repository. `go mod download` needs no module of ours: it only fetches (and
// checks against the checksum database) the module's zip. The stamp is written last, so a
// copy cut off half way is never taken for a finished one.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from '../versions.js';

/** github.com/openreports/reports-api (the newest tag on the proxy when written). */
export const OPENREPORTS_VERSION = 'v0.2.1';
export const OPENREPORTS_MODULE = 'github.com/openreports/reports-api';

/** Where the CRD YAMLs of OPENREPORTS_VERSION are copied (the directory `kubectl apply -f` takes). */
export function openReportsCrdsDir(): string {
  return join(cacheRoot(), 'openreports', OPENREPORTS_VERSION, 'crds');
}

export function fetchOpenReportsCrds(): string {
  const dir = openReportsCrdsDir();
  const stamp = join(dir, '..', 'complete.stamp');
  if (existsSync(stamp)) return dir;
  const started = Date.now();
  const at = `${OPENREPORTS_MODULE}@${OPENREPORTS_VERSION}`;
  console.log(`[openreports:fetch] go mod download -json ${at}`);
  mkdirSync(cacheRoot(), { recursive: true });
  // GOFLAGS=-mod=mod: run from anywhere, outside any module (a GOFLAGS=-mod=readonly from the caller would refuse).
  const r = spawnSync('go', ['mod', 'download', '-json', at], {
    env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' },
    cwd: cacheRoot(),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`go mod download ${at} failed (exit ${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
  const { Dir: moduleDir } = JSON.parse(r.stdout) as { Dir?: string };
  if (!moduleDir) throw new Error(`go mod download ${at} named no directory: ${r.stdout}`);
  const from = join(moduleDir, 'config', 'crd');
  const files = readdirSync(from).filter((f) => f.endsWith('.yaml'));
  // Both kinds or nothing: a release that renamed them must not leave the harness without one.
  for (const want of ['openreports.io_reports.yaml', 'openreports.io_clusterreports.yaml'])
    if (!files.includes(want)) throw new Error(`${at}: config/crd has no ${want} (found ${files.join(', ')})`);
  mkdirSync(dir, { recursive: true });
  for (const f of files) copyFileSync(join(from, f), join(dir, f));
  writeFileSync(stamp, JSON.stringify({ module: at, files, seconds: Math.round((Date.now() - started) / 1000), fetchedAt: new Date().toISOString() }) + '\n');
  console.log(`[openreports:fetch] ${files.length} CRDs in ${dir}`);
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) fetchOpenReportsCrds();
