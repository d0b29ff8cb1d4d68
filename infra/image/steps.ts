// The runtime stage's steps carried out over the base's layers, as a Dockerfile builder does:
// ENV, WORKDIR, USER, EXPOSE, ENTRYPOINT and CMD change the config; WORKDIR (when the directory
// is new), COPY and RUN each add a layer. A COPY takes the build stage's file from the bundle
// built here (the build stage's `npm run bundle`, infra/image/build.ts) and lands where the
// image's own symlinks lead (bookworm's /bin is usr/bin: COPY ... /bin/descheduler writes
// usr/bin/descheduler, as docker does). A RUN runs in a chroot of the layers (an overlay whose
// upper directory is the new layer) with the config's environment, directory and user.
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { basename, join, posix } from 'node:path';
import type { Plan, Step } from './dockerfile.js';
import { resolveIn } from './resolve.js';
import { runInRootfs } from './rootfs-process.js';

export interface ImageConfig {
  env: Record<string, string>;
  workdir: string;
  user: string;
  entrypoint: string[];
  cmd: string[];
  ports: string[];
}

export interface StepLayer {
  dir: string;
  /** The instruction, for the image's history. */
  createdBy: string;
}

/** What a RUN needs from outside: where its layer goes, and a cached result by its inputs. */
export interface RunContext {
  /** Returns a layer directory holding the RUN's changes, from the cache or by calling `make`. */
  cachedRun(step: Extract<Step, { kind: 'run' }>, config: ImageConfig, below: StepLayer[], make: (dir: string) => void): string;
  newDir(name: string): string;
}

const isDirIn = (layers: string[], path: string) => layers.some((l) => existsSync(join(l, path)) && lstatSync(join(l, path)).isDirectory());

/** A new directory in the layer for each missing parent, root-owned, 0755 (as COPY makes them). */
function copyInto(layer: string, layersTopFirst: string[], source: string, dest: string): void {
  const inImage = resolveIn(layersTopFirst, dest);
  const target = isDirIn(layersTopFirst, inImage) ? posix.join(inImage, basename(source)) : inImage;
  mkdirSync(join(layer, posix.dirname(target)), { recursive: true, mode: 0o755 });
  cpSync(source, join(layer, target), { recursive: true, preserveTimestamps: false, errorOnExist: true });
}

function copyStep(step: Extract<Step, { kind: 'copy' }>, plan: Plan, bundleDir: string, config: ImageConfig, layers: string[], dir: string): void {
  const many = step.sources.length > 1 || step.dest.endsWith('/');
  const dest = posix.resolve(config.workdir || '/', step.dest);
  if (many) mkdirSync(join(dir, resolveIn(layers, dest)), { recursive: true, mode: 0o755 });
  for (const src of step.sources) {
    const inRepo = src.slice(plan.buildRoot.length + 1);
    if (!inRepo.startsWith('dist/bundle/')) throw new Error(`line ${step.line}: COPY of ${src}: only the build stage's dist/bundle/ is built here`);
    const file = join(bundleDir, inRepo.slice('dist/bundle/'.length));
    if (!existsSync(file))
      throw new Error(`line ${step.line}: COPY of ${src}: the build stage does not make it (npm run bundle wrote ${readdirSync(bundleDir).join(', ')})`);
    copyInto(dir, [dir, ...layers], file, many ? `${dest}/` : dest);
  }
}

export function carryOut(plan: Plan, lines: string[], base: { layers: string[]; env: Record<string, string> }, bundleDir: string, ctx: RunContext) {
  const config: ImageConfig = { env: { ...base.env }, workdir: '', user: '', entrypoint: [], cmd: ['node'], ports: [] };
  const layers: StepLayer[] = [];
  const topFirst = () => [...layers.map((l) => l.dir)].reverse().concat([...base.layers].reverse());
  for (const [i, step] of plan.steps.entries()) {
    const createdBy = lines[i] ?? step.kind;
    switch (step.kind) {
      case 'env':
        Object.assign(config.env, step.vars);
        break;
      case 'workdir':
        config.workdir = step.path;
        if (!isDirIn(topFirst(), resolveIn(topFirst(), step.path))) {
          const dir = ctx.newDir(`${layers.length}-workdir`);
          mkdirSync(join(dir, resolveIn(topFirst(), step.path)), { recursive: true, mode: 0o755 });
          layers.push({ dir, createdBy });
        }
        break;
      case 'copy': {
        const dir = ctx.newDir(`${layers.length}-copy`);
        copyStep(step, plan, bundleDir, config, topFirst(), dir);
        layers.push({ dir, createdBy });
        break;
      }
      case 'run': {
        const lower = topFirst();
        const dir = ctx.cachedRun(step, config, layers, (upper) =>
          runInRootfs({
            root: ctx.newDir(`${layers.length}-run-root`),
            workdir: config.workdir || '/',
            user: config.user || '0:0',
            env: config.env,
            argv: ['/bin/sh', '-c', step.command],
            overlay: { lower, upper, work: ctx.newDir(`${layers.length}-run-work`) },
          }),
        );
        layers.push({ dir, createdBy });
        break;
      }
      case 'user':
        config.user = step.user;
        break;
      case 'expose':
        config.ports.push(step.port);
        break;
      case 'entrypoint':
        // As docker: a new ENTRYPOINT drops the CMD it inherited.
        config.entrypoint = step.argv;
        config.cmd = [];
        break;
      case 'cmd':
        config.cmd = step.argv;
        break;
    }
  }
  return { layers, config };
}
