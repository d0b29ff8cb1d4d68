// Builds e2epolicies/main.go (the descheduler's e2e tests' policies, serialised by Go as the
// tests write them) through the wrapper module beside this file, cached like the oracle
// (oracle-build.ts) under its own key: DESCHEDULER_VERSION and a hash of its source, go.mod and
// go.sum. The oracle's key does not include this program, so neither rebuilds the other.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedGoBuild, sourceHash } from '../go-run.js';
import { cacheRoot } from '../versions.js';
import { DESCHEDULER_VERSION } from './build.js';

const moduleDir = dirname(fileURLToPath(import.meta.url));
const SOURCES = ['e2epolicies/main.go', 'go.mod', 'go.sum'];

export function e2ePoliciesBin(): string {
  return join(cacheRoot(), 'descheduler-e2e-policies', `${DESCHEDULER_VERSION}-${sourceHash(moduleDir, SOURCES)}`, 'bin', 'e2epolicies');
}

export function buildE2EPolicies(): string {
  const bin = e2ePoliciesBin();
  return cachedGoBuild({
    name: 'e2epolicies',
    bin,
    pkg: './e2epolicies',
    cwd: moduleDir,
    stamp: { DESCHEDULER_VERSION, source: sourceHash(moduleDir, SOURCES) },
  });
}

/** Each policy the e2e tests build, as the YAML text Go writes into their ConfigMap. */
export function goWrittenPolicies(): { id: string; policy: string }[] {
  return JSON.parse(execFileSync(buildE2EPolicies(), { encoding: 'utf8' })) as { id: string; policy: string }[];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildE2EPolicies();
