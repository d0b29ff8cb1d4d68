// The programs the daemon-less build drives (mmdebstrap, umoci, GNU tar, npm), where its caches
// live, and a layer as a tar whose bytes depend only on the files: the reproducible-builds
// recipe for GNU tar (names sorted, owners numeric, no atime/ctime, every mtime clamped to the
// build's epoch).
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot } from '../local/versions.js';

/** ~/.cache/kube-tidy/<name>: the control plane's cache root (infra/local/versions.ts), one XDG_CACHE_HOME rule for every cache. */
export const imageCache = (name: string): string => join(cacheRoot(), name);

/** Runs a program, its output kept for the error: a failed step says which and why. */
export function run(cmd: string, args: string[], opts: ExecFileSyncOptions = {}): string {
  try {
    return String(execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts }));
  } catch (e) {
    const x = e as { stderr?: Buffer; stdout?: Buffer; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${String(x.stderr ?? '') || String(x.stdout ?? '') || x.message}`.slice(0, 8000), { cause: e });
  }
}

/** The programs `npm run image` needs, each with the Debian package that has it (`npm run image:tools`, part of `npm test`, installs them). */
export const NEEDED = { mmdebstrap: 'mmdebstrap', umoci: 'umoci', unshare: 'util-linux', tar: 'tar' } as const;

export function missingTools(): string[] {
  return Object.entries(NEEDED)
    .filter(([bin]) => {
      try {
        execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
        return false;
      } catch {
        return true;
      }
    })
    .map(([, pkg]) => pkg);
}

/** `dir` as an uncompressed tar beside it (`<dir>.tar`), the same bytes for the same files. */
export function tarLayer(dir: string, epoch: number): string {
  const out = `${dir}.tar`;
  run('tar', [
    '--sort=name',
    '--format=posix',
    '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
    `--mtime=@${epoch}`,
    '--clamp-mtime',
    '--numeric-owner',
    '-C',
    dir,
    '-cf',
    out,
    '.',
  ]);
  return out;
}

/** Keeps the `keep` newest entries of a cache folder (one per commit built: they would pile up on a CI machine). */
export function prune(dir: string, keep: number): void {
  if (!existsSync(dir)) return;
  const entries = readdirSync(dir)
    .map((name) => ({ path: join(dir, name), at: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of entries.slice(keep)) rmSync(old.path, { recursive: true, force: true });
}
