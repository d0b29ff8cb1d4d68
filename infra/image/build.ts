// `npm run image`: the production image built without a Docker daemon, from
// infra/docker/Dockerfile (the one description of it; infra/image/dockerfile.ts refuses what it
// cannot carry out), as an OCI layout under ~/.cache/kube-tidy/image/<version>-<inputs>/oci,
// tagged with the package's version. The build stage's work is `npm run bundle` over the same
// sources (the Dockerfile's own unit test replays that stage); the runtime stage's steps run over
// a base equivalent to its FROM (infra/image/base.ts). Reproducible: every time in the image is
// SOURCE_DATE_EPOCH (the time of the last commit that changed its inputs), tars are sorted with numeric owners, and the one step
// whose output is not deterministic, RUN node warm.cjs (V8 compiles lazily, so which functions
// a code cache holds differs run to run), is kept by its inputs as a Docker layer cache keeps
// it: the same commit gives the same digest. The whole image is cached by the hash of its
// inputs, so a test suite builds it once per change.
//
// Usage: npm run image [-- --json]   (prints the digest, the layout and the sizes)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../bundle/build.js';
import { baseKey, ensureBase } from './base.js';
import { parseDockerfile, planOf, type Step } from './dockerfile.js';
import { pack, readImage, type OciConfig } from './oci.js';
import { carryOut, type ImageConfig, type RunContext, type StepLayer } from './steps.js';
import { imageCache, missingTools, NEEDED, prune, run, tarLayer } from './tools.js';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
export const DOCKERFILE = join(ROOT, 'infra', 'docker', 'Dockerfile');
/** What the image is made of: the build stage's sources (its .dockerignore's allow-list), the Dockerfile and this builder. */
const INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'functions', 'shared', 'infra/bundle', 'infra/docker', 'infra/image'];

/** Images (and RUN layers) kept in the cache: the newest few commits'. */
const KEEP = 4;

export interface BuiltImage {
  /** The OCI layout. */
  layout: string;
  tag: string;
  /** The manifest's digest, sha256:... */
  digest: string;
  config: OciConfig;
  layers: { digest: string; size: number }[];
  /** The base's Debian packages, `name version` per line. */
  packages: string;
  /** Whether it came from the cache whole. */
  cached: boolean;
  ms: number;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** SOURCE_DATE_EPOCH when set, else the time of the last commit that changed the image's inputs (a commit of docs alone rebuilds nothing). */
export function sourceDateEpoch(): number {
  const set = process.env.SOURCE_DATE_EPOCH;
  if (set) return Number(set);
  return Number(execFileSync('git', ['log', '-1', '--format=%ct', '--', ...INPUTS], { cwd: ROOT, encoding: 'utf8' }).trim());
}

/** Tracked and untracked (not ignored) files under INPUTS, test files out as the .dockerignore says, hashed by content. */
export function inputsHash(epoch: number, base: string): string {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', ...INPUTS], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !f.endsWith('.test.ts') && existsSync(join(ROOT, f)))
    .sort();
  const h = createHash('sha256').update(`${epoch}\n${base}\n`);
  for (const f of files)
    h.update(`${f}\n`)
      .update(readFileSync(join(ROOT, f)))
      .update(`${(statSync(join(ROOT, f)).mode & 0o111) !== 0}\n`);
  return h.digest('hex').slice(0, 16);
}

/** A RUN's changes must be additions: an overlay whiteout (a deletion) has no layer form here. */
function checkNoWhiteouts(dir: string, at = ''): void {
  for (const name of readdirSync(join(dir, at))) {
    const s = lstatSync(join(dir, at, name));
    if (s.isCharacterDevice() && s.rdev === 0) throw new Error(`the RUN step removed /${at}${name}: this builder makes no whiteouts`);
    if (s.isDirectory()) checkNoWhiteouts(dir, join(at, name));
  }
}

function runContext(work: string, epoch: number, baseKeyOf: string, tarOf: (dir: string) => { tar: string; sha: string }): RunContext {
  const newDir = (name: string) => {
    const dir = join(work, 'layers', name);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    return dir;
  };
  const cachedRun = (step: Extract<Step, { kind: 'run' }>, config: ImageConfig, below: StepLayer[], make: (dir: string) => void) => {
    const key = sha256(JSON.stringify({ base: baseKeyOf, below: below.map((l) => tarOf(l.dir).sha), command: step.command, config, epoch }));
    const cached = join(imageCache('image-run'), `${key}.tar`);
    const dir = newDir(`${below.length}-run`);
    if (existsSync(cached)) {
      run('tar', ['-xf', cached, '-C', dir]);
      return dir;
    }
    make(dir);
    checkNoWhiteouts(dir);
    mkdirSync(imageCache('image-run'), { recursive: true });
    copyFileSync(tarOf(dir).tar, `${cached}.tmp`);
    renameSync(`${cached}.tmp`, cached);
    return dir;
  };
  return { newDir, cachedRun };
}

const version = (): string => (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

async function make(out: string, epoch: number, log: (line: string) => void): Promise<void> {
  const text = readFileSync(DOCKERFILE, 'utf8');
  const plan = planOf(text);
  const lines = parseDockerfile(text)[1]!.instructions.map((i) => `${i.op} ${i.args}`);
  const tars = new Map<string, { tar: string; sha: string }>();
  const tarOf = (dir: string) => {
    if (!tars.has(dir)) {
      const tar = tarLayer(dir, epoch);
      tars.set(dir, { tar, sha: sha256(readFileSync(tar)) });
    }
    return tars.get(dir)!;
  };
  const base = ensureBase(plan.base);
  log(`base ${base.key}`);
  const work = mkdtempSync(`${out}.work-`);
  try {
    const bundled = await bundle(join(work, 'bundle', 'server.cjs'));
    log(`bundle: app.cjs ${(bundled.bytes / 1024).toFixed(0)} KiB`);
    const { layers, config } = carryOut(plan, lines, base, join(work, 'bundle'), runContext(work, epoch, base.key, tarOf));
    const layout = join(work, 'oci');
    pack({
      baseLayout: base.layout,
      out: layout,
      tag: version(),
      layers: layers.map((l) => ({ tar: tarOf(l.dir).tar, createdBy: l.createdBy })),
      config,
      epoch,
    });
    writeFileSync(join(work, 'packages.txt'), base.packages);
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out);
    renameSync(layout, join(out, 'oci'));
    renameSync(join(work, 'packages.txt'), join(out, 'packages.txt'));
    writeFileSync(join(out, 'complete.stamp'), `${new Date().toISOString()}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function outputOf(): { out: string; epoch: number } {
  const missing = missingTools();
  if (missing.length) throw new Error(`npm run image needs ${Object.keys(NEEDED).join(', ')}: apt-get install ${missing.join(' ')}`);
  const epoch = sourceDateEpoch();
  const plan = planOf(readFileSync(DOCKERFILE, 'utf8'));
  return { out: join(imageCache('image'), `${version()}-${inputsHash(epoch, baseKey(plan.base))}`), epoch };
}

/** Builds the image, or takes it from the cache when its inputs have not changed. */
export async function buildImage(log: (line: string) => void = () => undefined): Promise<BuiltImage> {
  const started = Date.now();
  const { out, epoch } = outputOf();
  const cached = existsSync(join(out, 'complete.stamp'));
  if (!cached) {
    mkdirSync(imageCache('image'), { recursive: true });
    await make(out, epoch, log);
    prune(imageCache('image'), KEEP);
    prune(imageCache('image-run'), KEEP);
  }
  const image = readImage(join(out, 'oci'), version());
  const packages = readFileSync(join(out, 'packages.txt'), 'utf8');
  return { layout: join(out, 'oci'), tag: version(), ...image, packages, cached, ms: Date.now() - started };
}

/** The digest of the same inputs built again beside the cached image (its RUN layer from the RUN cache, all else anew), then removed. */
export async function buildAgain(log: (line: string) => void = () => undefined): Promise<string> {
  const { out, epoch } = outputOf();
  const again = `${out}.again-${process.pid}`;
  try {
    await make(again, epoch, log);
    return readImage(join(again, 'oci'), version()).digest;
  } finally {
    rmSync(again, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const image = await buildImage((line) => console.error(`[image] ${line}`));
  const mb = (n: number) => (n / 1e6).toFixed(1);
  const compressed = image.layers.reduce((n, l) => n + l.size, 0);
  if (process.argv.includes('--json')) console.log(JSON.stringify({ ...image, packages: undefined }, null, 2));
  else {
    console.log(`kube-tidy:${image.tag}@${image.digest}`);
    console.log(`  ${relative(process.cwd(), image.layout) || image.layout} (OCI layout, tag ${image.tag})`);
    console.log(`  ${image.layers.length} layers, ${mb(compressed)} MB compressed; ${image.cached ? 'cached' : 'built'} in ${(image.ms / 1000).toFixed(1)} s`);
    console.log(`  push it: skopeo copy oci:${image.layout}:${image.tag} docker://<registry>/kube-tidy:${image.tag}`);
  }
}
