// A path in an image, resolved through the symlinks its layers hold, as a runtime or a builder
// resolves it inside the image's root: Debian's /bin is `usr/bin` and /var/run is `/run`, and
// followed on the host they would lead out of the image (to the host's /run).
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { join, posix } from 'node:path';

/** `path` (absolute, in the image) with every symlink on the way resolved through the layers, top layer first. */
export function resolveIn(layers: string[], path: string, hops = 0): string {
  if (hops > 40) throw new Error(`too many symlinks resolving ${path}`);
  const parts = path.split('/').filter(Boolean);
  let at = '/';
  for (const [i, part] of parts.entries()) {
    const next = posix.join(at, part);
    const found = layers.find((l) => existsSync(join(l, next)) || isLink(join(l, next)));
    if (found && isLink(join(found, next))) {
      const target = readlinkSync(join(found, next));
      const rest = parts.slice(i + 1).join('/');
      return resolveIn(layers, posix.join(target.startsWith('/') ? target : posix.join(at, target), rest), hops + 1);
    }
    at = next;
  }
  return at;
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
