// The runtime stage's base, node:<version>-<suite>-slim, made here without a registry: a Debian
// minbase of that suite from Debian's mirror (mmdebstrap), slimmed as debian:<suite>-slim is
// (no man pages, locales or docs beyond copyrights), then Node's official linux binary of that
// exact version (the npm registry's node-linux-<arch> package, checked by npm against the
// registry's integrity) and the image's user node, uid and gid 1000. Two layers, as the official
// image has them: the Debian root and Node with its user. What it leaves out of the official
// image: npm, yarn and the entrypoint script (nothing in kube-tidy's image runs them; the
// Dockerfile drops the entrypoint). Cached by suite, Node version, architecture and this
// recipe under ~/.cache/kube-tidy/image-base/, with the Debian packages' versions beside it:
// Debian's mirror moves (security updates), so a fresh cache may hold newer packages, and
// packages.txt says which.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Base } from './dockerfile.js';
import { imageCache, run, tarLayer } from './tools.js';

/** Every file of the two base layers carries this time (2024-01-01), so their bytes do not depend on when the cache was filled. */
export const BASE_EPOCH = 1_704_067_200;

export const MIRROR = 'http://deb.debian.org/debian';
const MERGED_USR_HOOK = '/usr/share/mmdebstrap/hooks/merged-usr';

/** What debian:<suite>-slim leaves out, as dpkg path filters. */
const SLIM = [
  'path-exclude=/usr/share/man/*',
  'path-exclude=/usr/share/info/*',
  'path-exclude=/usr/share/locale/*',
  'path-exclude=/usr/share/doc/*',
  'path-include=/usr/share/doc/*/copyright',
  'path-exclude=/usr/share/lintian/*',
];

/** What a container runtime provides at start, so images carry none of it. */
const RUNTIME_PROVIDED = ['etc/hostname', 'etc/resolv.conf', 'etc/hosts'];

const ARCH: Record<string, { debian: string; node: string }> = { x64: { debian: 'amd64', node: 'x64' }, arm64: { debian: 'arm64', node: 'arm64' } };

export interface BaseImage {
  /** The two layers as directories, bottom first: the Debian root, then Node and its user. */
  layers: [string, string];
  /** An OCI layout (tag `base`) holding those two layers and the base's config. */
  layout: string;
  /** The base image's config: what node:<version>-slim sets, less what it leaves out here. */
  env: Record<string, string>;
  architecture: string;
  /** `package version` lines of the Debian root. */
  packages: string;
  key: string;
}

export function archOf(): { debian: string; node: string } {
  const arch = ARCH[process.arch];
  if (!arch) throw new Error(`no Node binary package for ${process.arch}`);
  return arch;
}

const recipeHash = (): string =>
  createHash('sha256')
    .update(JSON.stringify({ SLIM, RUNTIME_PROVIDED, MIRROR, MERGED_USR_HOOK, BASE_EPOCH, v: 1 }))
    .digest('hex')
    .slice(0, 12);

function debianRoot(dir: string, suite: string, arch: string): void {
  const dpkg = SLIM.flatMap((o) => ['--dpkgopt', o]);
  // merged-usr set up by mmdebstrap's own hook, as debian:<suite>-slim is made, not by the
  // usrmerge package (which would bring a full perl along).
  const hooks = ['--hook-dir', MERGED_USR_HOOK];
  run('mmdebstrap', ['--quiet', '--variant=minbase', '--mode=root', '--format=directory', `--architectures=${arch}`, ...hooks, ...dpkg, suite, dir, MIRROR], {
    env: { ...process.env, SOURCE_DATE_EPOCH: String(BASE_EPOCH) },
  });
  for (const f of RUNTIME_PROVIDED) rmSync(join(dir, f), { force: true });
  // The runtime mounts its own /dev.
  run('find', [join(dir, 'dev'), '-mindepth', '1', '-delete']);
}

/** Node's binary and licence, and the user node (1000:1000, home /home/node) as useradd writes it. */
function nodeLayer(dir: string, debian: string, version: string, arch: string, tmp: string): void {
  run('npm', ['pack', '--silent', `node-linux-${arch}@${version}`, '--pack-destination', tmp]);
  const tgz = join(tmp, `node-linux-${arch}-${version}.tgz`);
  run('tar', ['-xzf', tgz, '-C', tmp, 'package/bin/node', 'package/LICENSE']);
  mkdirSync(join(dir, 'usr/local/bin'), { recursive: true });
  mkdirSync(join(dir, 'usr/local/share/doc/node'), { recursive: true });
  renameSync(join(tmp, 'package/bin/node'), join(dir, 'usr/local/bin/node'));
  chmodSync(join(dir, 'usr/local/bin/node'), 0o755);
  renameSync(join(tmp, 'package/LICENSE'), join(dir, 'usr/local/share/doc/node/LICENSE'));
  mkdirSync(join(dir, 'etc'));
  const days = Math.floor(BASE_EPOCH / 86_400);
  const lines: Record<string, string> = {
    passwd: 'node:x:1000:1000::/home/node:/bin/bash',
    group: 'node:x:1000:',
    shadow: `node:!:${days}:0:99999:7:::`,
    gshadow: 'node:!::',
  };
  for (const [file, line] of Object.entries(lines)) {
    writeFileSync(join(dir, 'etc', file), readFileSync(join(debian, 'etc', file)));
    appendFileSync(join(dir, 'etc', file), `${line}\n`);
    chmodSync(join(dir, 'etc', file), file.includes('shadow') ? 0o640 : 0o644);
    if (file.includes('shadow')) chownSync(join(dir, 'etc', file), 0, 42); // group shadow, as Debian has it
  }
  mkdirSync(join(dir, 'home/node'), { recursive: true });
  chownSync(join(dir, 'home/node'), 1000, 1000);
}

/** The base's OCI layout: an empty image, the two layers, the base's config (all at BASE_EPOCH). */
function baseLayout(layout: string, layers: string[], env: Record<string, string>, arch: string): void {
  const at = new Date(BASE_EPOCH * 1000).toISOString();
  run('umoci', ['init', '--layout', layout]);
  run('umoci', ['new', '--image', `${layout}:base`]);
  for (const [i, dir] of layers.entries()) {
    const tar = tarLayer(dir, BASE_EPOCH);
    const by = i === 0 ? 'debian minbase (mmdebstrap), slim' : 'node binary (npm node-linux-*), user node 1000:1000';
    run('umoci', ['raw', 'add-layer', '--image', `${layout}:base`, '--history.created', at, '--history.created_by', by, tar]);
    rmSync(tar);
  }
  const envFlags = Object.entries(env).flatMap(([k, v]) => ['--config.env', `${k}=${v}`]);
  run('umoci', [
    'config',
    '--image',
    `${layout}:base`,
    '--created',
    at,
    '--no-history',
    '--os',
    'linux',
    '--architecture',
    arch,
    ...envFlags,
    '--config.cmd',
    'node',
  ]);
  run('umoci', ['gc', '--layout', layout]);
}

/** The cache's name for `base`: suite, Node version, architecture and this recipe. */
export const baseKey = (base: Base): string => `${base.suite}-node${base.node}-${archOf().debian}-${recipeHash()}`;

/** The cached base for `base`, made first when missing (about half a minute, plus the download). */
export function ensureBase(base: Base): BaseImage {
  const arch = archOf();
  const key = baseKey(base);
  const dir = join(imageCache('image-base'), key);
  const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', NODE_VERSION: base.node };
  const result = (at: string): BaseImage => ({
    layers: [join(at, 'debian'), join(at, 'node')],
    layout: join(at, 'oci'),
    env,
    architecture: arch.debian,
    packages: existsSync(join(at, 'packages.txt')) ? readFileSync(join(at, 'packages.txt'), 'utf8') : '',
    key,
  });
  if (existsSync(join(dir, 'complete.stamp'))) return result(dir);
  mkdirSync(imageCache('image-base'), { recursive: true });
  // Made aside and renamed into place: a cut-off build never looks finished.
  const tmp = mkdtempSync(`${dir}.tmp-`);
  const made = result(tmp);
  debianRoot(made.layers[0], base.suite, arch.debian);
  nodeLayer(made.layers[1], made.layers[0], base.node, arch.node, mkdtempSync(join(tmp, 'download-')));
  run('find', [tmp, '-mindepth', '1', '-maxdepth', '1', '-name', 'download-*', '-exec', 'rm', '-rf', '{}', '+']);
  const packages = execFileSync('dpkg-query', ['--admindir', join(made.layers[0], 'var/lib/dpkg'), '-W', '-f', '${Package} ${Version}\\n'], {
    encoding: 'utf8',
  });
  writeFileSync(join(tmp, 'packages.txt'), packages);
  baseLayout(made.layout, made.layers, env, arch.debian);
  writeFileSync(join(tmp, 'complete.stamp'), `${new Date().toISOString()}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return result(dir);
}
