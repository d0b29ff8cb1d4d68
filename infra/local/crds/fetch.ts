// Fetches the upstream CRD sets of sources.ts from their Go modules into the cache, once per
// pinned version: `go mod download -json MODULE@VERSION` (no module of ours needed: it only
// fetches the zip and checks it against the checksum database), then the named files copied.
// The copy is made in a folder of its own and renamed into place with its stamp already in it,
// so neither a copy cut off half way nor two test workers fetching at once can leave a folder
// that looks finished and is not. `npm run crds:fetch` fetches every set; the harness fetches
// a missing one on first use.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from '../versions.js';
import { CRD_SETS, type CrdModule, type CrdSetName } from './sources.js';

/** MODULE@VERSION -> the directory of the module's unpacked zip. */
export type Download = (at: string) => string;

export interface FetchOptions {
  download?: Download;
  /** Default cacheRoot(): ~/.cache/kube-tidy, or $XDG_CACHE_HOME/kube-tidy. */
  root?: string;
  log?: (line: string) => void;
}

const at = (m: CrdModule) => `${m.module}@${m.version}`;

/** The folder a set's versions are kept in: a new version is a new folder, never an overwrite. */
function setDir(name: CrdSetName, root: string): string {
  const key = CRD_SETS[name].modules.map((m) => `${m.module.split('/').pop()}-${m.version}`).join('+');
  return join(root, 'crds', name, key);
}

/** Where the set's CRD YAMLs are (the directory `kubectl apply -f` takes), fetched or not. */
export function crdsDir(name: CrdSetName, root = cacheRoot()): string {
  return join(setDir(name, root), 'crds');
}

export const goModDownload: Download = (module) => {
  // GOFLAGS=-mod=mod: run from anywhere, outside any module (a GOFLAGS=-mod=readonly from the caller would refuse).
  const r = spawnSync('go', ['mod', 'download', '-json', module], {
    env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' },
    cwd: cacheRoot(),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`go mod download ${module} failed (exit ${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
  const { Dir: dir } = JSON.parse(r.stdout) as { Dir?: string };
  if (!dir) throw new Error(`go mod download ${module} named no directory: ${r.stdout}`);
  return dir;
};

function copySet(name: CrdSetName, into: string, download: Download): string[] {
  const copied: string[] = [];
  for (const m of CRD_SETS[name].modules) {
    const from = join(download(at(m)), m.from);
    const missing = m.files.filter((f) => !existsSync(join(from, f)));
    if (missing.length) throw new Error(`${at(m)}: ${m.from} has no ${missing.join(', ')}`);
    for (const f of m.files) {
      const to = `${m.prefix ?? ''}${f}`;
      copyFileSync(join(from, f), join(into, to));
      copied.push(to);
    }
  }
  return copied;
}

/** Fetches the set when its stamp is missing; returns its CRD directory. */
export function fetchCrds(name: CrdSetName, options: FetchOptions = {}): string {
  const { download = goModDownload, root = cacheRoot(), log = (l) => console.log(`[crds:fetch] ${l}`) } = options;
  const final = setDir(name, root);
  if (existsSync(join(final, 'complete.stamp'))) return crdsDir(name, root);
  const started = Date.now();
  const modules = CRD_SETS[name].modules.map(at);
  log(`${name} (${CRD_SETS[name].purpose}): go mod download -json ${modules.join(' ')}`);
  const stage = `${final}.${process.pid}.tmp`;
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, 'crds'), { recursive: true });
  try {
    const files = copySet(name, join(stage, 'crds'), download);
    const seconds = Math.round((Date.now() - started) / 1000);
    writeFileSync(join(stage, 'complete.stamp'), JSON.stringify({ modules, files, seconds, fetchedAt: new Date().toISOString() }) + '\n');
    // A folder without its stamp is a copy of the older layout cut short: replaced.
    if (existsSync(final) && !existsSync(join(final, 'complete.stamp'))) rmSync(final, { recursive: true, force: true });
    if (!existsSync(final)) renameSync(stage, final);
    log(`${name}: ${files.length} CRDs in ${crdsDir(name, root)}`);
  } catch (e) {
    // Another worker's rename landing between the check and ours leaves its finished copy.
    if (!existsSync(join(final, 'complete.stamp'))) throw e;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return crdsDir(name, root);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) for (const name of Object.keys(CRD_SETS) as CrdSetName[]) fetchCrds(name);
