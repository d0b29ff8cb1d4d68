// The production image as the tests run it: built by `npm run image`'s builder (cached by the
// hash of its inputs, so a run after no change builds nothing), unpacked by umoci into the
// root filesystem and runtime config an OCI runtime would get (cached by digest), and a
// container of it started as a runtime starts one: the image's own entrypoint, command, user,
// working directory and environment, with Kubernetes' rules for a container's command and args,
// the root read-only under a writable layer of its own, files mounted where a pod mounts them.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage } from '../../../infra/image/build.js';
import { startInRootfs, type RootfsProcess } from '../../../infra/image/rootfs-process.js';
import { imageCache, prune, run } from '../../../infra/image/tools.js';

export interface ImageUnderTest {
  /** What a pod names: kube-tidy.local/kube-tidy@sha256:... */
  ref: string;
  digest: string;
  rootfs: string;
  entrypoint: string[];
  cmd: string[];
  /** The runtime config umoci made from the image's config: env (with HOME), uid:gid, working directory. */
  env: Record<string, string>;
  user: string;
  workdir: string;
  layout: string;
  tag: string;
  /** Milliseconds the build took (from its cache: near 0). */
  buildMs: number;
  cached: boolean;
}

interface RuntimeSpec {
  process: { args: string[]; env: string[]; cwd: string; user: { uid: number; gid: number } };
}

/** `umoci unpack` of the image: rootfs/ and config.json, once per digest. */
function unpacked(layout: string, tag: string, digest: string): string {
  const dir = join(imageCache('image-unpacked'), digest.replace('sha256:', ''));
  if (existsSync(join(dir, 'complete.stamp'))) return dir;
  mkdirSync(imageCache('image-unpacked'), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  run('umoci', ['unpack', '--image', `${layout}:${tag}`, tmp]);
  writeFileSync(join(tmp, 'complete.stamp'), '');
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  prune(imageCache('image-unpacked'), 2);
  return dir;
}

export async function imageUnderTest(): Promise<ImageUnderTest> {
  const image = await buildImage((line) => console.log(`[image] ${line}`));
  const dir = unpacked(image.layout, image.tag, image.digest);
  const spec = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as RuntimeSpec;
  const env = Object.fromEntries(spec.process.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  return {
    ref: `kube-tidy.local/kube-tidy@${image.digest}`,
    digest: image.digest,
    rootfs: join(dir, 'rootfs'),
    entrypoint: image.config.config.Entrypoint ?? [],
    cmd: image.config.config.Cmd ?? [],
    env,
    user: `${spec.process.user.uid}:${spec.process.user.gid}`,
    workdir: spec.process.cwd,
    layout: image.layout,
    tag: image.tag,
    buildMs: image.ms,
    cached: image.cached,
  };
}

export interface Container {
  /** Kubernetes' command: replaces the image's entrypoint (and its command, unless args are given). */
  command?: string[];
  /** Kubernetes' args: replace the image's command. */
  args?: string[];
  env?: Record<string, string>;
  /** Path in the image -> host file or directory, mounted read-only. */
  mounts?: Record<string, string>;
  readOnlyRootFilesystem?: boolean;
}

/** The process a runtime would start (https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/#notes). */
export function argvOf(image: ImageUnderTest, c: Container): string[] {
  if (c.command) return [...c.command, ...(c.args ?? [])];
  return [...image.entrypoint, ...(c.args ?? image.cmd)];
}

/** A container of the image; `onStart` gets its pid (for the cluster's pids file). */
export function startContainer(image: ImageUnderTest, c: Container, onStart?: (pid: number) => void): RootfsProcess & { cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-container-'));
  for (const d of ['root', 'upper', 'work']) mkdirSync(join(dir, d));
  const p = startInRootfs(
    {
      root: join(dir, 'root'),
      workdir: image.workdir,
      user: image.user,
      env: { ...image.env, ...c.env },
      argv: argvOf(image, c),
      readOnly: c.readOnlyRootFilesystem ?? true,
      overlay: { lower: [image.rootfs], upper: join(dir, 'upper'), work: join(dir, 'work') },
      binds: Object.fromEntries(Object.entries(c.mounts ?? {}).map(([inImage, host]) => [host, inImage])),
    },
    onStart,
  );
  void p.exited.then(() => rmSync(dir, { recursive: true, force: true }));
  return { ...p, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
