// Builds promcheck (main.go beside this file: Prometheus's own exposition linter, rule-file
// loader and PromQL parser) once per Prometheus version and source, like the descheduler
// oracle: the cache key holds PROMETHEUS_VERSION and a hash of main.go, go.mod and go.sum,
// and the stamp is written last, so a build cut off half way is never taken for a finished
// one. Why not promtool: its package graph holds every service discovery and the TSDB (a
// cold build several times longer) for three checks that need none of them.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedGoBuild, sourceHash as hashOf } from '../go-run.js';
import { cacheRoot } from '../versions.js';

/** github.com/prometheus/prometheus in go.mod (the newest tag on the proxy when written). */
export const PROMETHEUS_VERSION = 'v0.316.0';

const moduleDir = dirname(fileURLToPath(import.meta.url));
const SOURCES = ['main.go', 'go.mod', 'go.sum'];

function sourceHash(): string {
  return hashOf(moduleDir, SOURCES);
}

export function promcheckBin(): string {
  return join(cacheRoot(), 'promcheck', `${PROMETHEUS_VERSION}-${sourceHash()}`, 'bin', 'promcheck');
}

export function buildPromcheck(): string {
  return cachedGoBuild({ name: 'promcheck', bin: promcheckBin(), pkg: '.', cwd: moduleDir, stamp: { PROMETHEUS_VERSION, source: sourceHash() } });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildPromcheck();
