// The runtime half of "the repository stands alone" (the static half is
// test/unit/lint/outside-tree.test.ts): a directory the harness installs into a cluster is inside
// this checkout or kube-tidy's cache, never a folder that only some layouts have beside it.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from '../../infra/local/versions.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const within = (base: string, path: string) => {
  const r = relative(base, path);
  return r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r));
};

/** `path` made absolute, or an error naming where it is when neither in the tree nor the cache. */
export function insideTreeOrCache(path: string, root = ROOT, cache = cacheRoot()): string {
  const abs = resolve(path);
  if (within(root, abs) || within(cache, abs)) return abs;
  throw new Error(`${abs} is outside the repository (${root}) and its cache (${cache}): a fresh clone has nothing beside it`);
}
