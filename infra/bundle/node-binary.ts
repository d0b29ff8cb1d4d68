// A Node binary of a given major version. The machine's own node may be older (20), so tests
// and benches take Node 22 or 24 from the npm package `node` (npx caches it; after the first
// fetch it works offline). NODE<major> overrides, e.g. NODE22=$(command -v node).
import { execFileSync } from 'node:child_process';

const cached = new Map<number, string>();

export function nodeBinary(major: number): string {
  const known = cached.get(major);
  if (known) return known;
  const path =
    process.env[`NODE${major}`] ??
    execFileSync('npx', ['-y', `node@${major}`, '-p', 'process.execPath'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000 }).trim();
  const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
  if (!version.startsWith(`v${major}.`)) throw new Error(`${path} is Node ${version}, not ${major}`);
  cached.set(major, path);
  return path;
}
