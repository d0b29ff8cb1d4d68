// The Node 22 binary the bundle is built for. The machine's own node may be older (20), so
// tests and benches take Node 22 from the npm package `node` (npx caches it; after the first
// fetch it works offline). NODE22 overrides, e.g. NODE22=$(command -v node) on a Node 22 host.
import { execFileSync } from 'node:child_process';

let cached: string | undefined;

export function node22(): string {
  if (cached) return cached;
  const path =
    process.env.NODE22 ??
    execFileSync('npx', ['-y', 'node@22', '-p', 'process.execPath'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000 }).trim();
  const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
  if (!version.startsWith('v22.')) throw new Error(`${path} is Node ${version}, not 22`);
  cached = path;
  return path;
}
