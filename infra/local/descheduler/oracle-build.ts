// Builds the conformance oracle (oracle/main.go: the real descheduler v0.36.0 over cases read
// from stdin) through the wrapper module beside this file, once per version and source: the
// cache key holds DESCHEDULER_VERSION and a hash of the oracle's source, go.mod and go.sum, so
// an edited oracle is rebuilt and an unchanged one never is. The stamp is written last: a
// build cut off half way is never taken for a finished one.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedGoBuild, sourceHash as hashOf } from '../go-run.js';
import { cacheRoot } from '../versions.js';
import { DESCHEDULER_VERSION } from './build.js';

const moduleDir = dirname(fileURLToPath(import.meta.url));
const SOURCES = ['oracle/main.go', 'go.mod', 'go.sum'];

export function oracleSourceHash(): string {
  return hashOf(moduleDir, SOURCES);
}

export function oracleBin(): string {
  return join(cacheRoot(), 'descheduler-oracle', `${DESCHEDULER_VERSION}-${oracleSourceHash()}`, 'bin', 'oracle');
}

export function buildOracle(): string {
  return cachedGoBuild({ name: 'oracle', bin: oracleBin(), pkg: './oracle', cwd: moduleDir, stamp: { DESCHEDULER_VERSION, source: oracleSourceHash() } });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildOracle();
