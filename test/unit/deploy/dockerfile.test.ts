// No Docker engine here, so the Dockerfile is replayed: its COPY lines against the real
// repository (with its .dockerignore), its RUN lines in that copy (`npm ci` stands in as a
// link to the installed node_modules: no network), the runtime stage's files into an empty
// directory, and its CMD on Node 22. What this cannot show: that the base image exists, the
// user switch, the layer cache. It does show that the build stage copies enough to bundle
// and that the runtime stage has all it needs to serve.
import { execSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { IMAGE_NODE_OPTIONS } from '../../../infra/bundle/heap.js';
import { node22 } from '../../../infra/bundle/node22.js';
import { startServer } from '../../../infra/bundle/serving.js';
import { TARGETS } from '../../../shared/hosts/server/register.js';
import { httpMessage, toApiServerSourceEvent } from '../../../shared/cloudevents/index.js';

// Real processes start slowly when the whole suite runs in parallel on two cores.
vi.setConfig({ testTimeout: 30_000 });

const DOCKERFILE = join(REPO_ROOT, 'infra', 'docker', 'Dockerfile');
type Instr = { op: string; args: string };
const instructions: Instr[] = readFileSync(DOCKERFILE, 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.trim().startsWith('#'))
  .map((l) => ({ op: l.split(/\s+/)[0]!.toUpperCase(), args: l.slice(l.indexOf(' ') + 1).trim() }));
const stages = instructions.reduce<Instr[][]>((acc, i) => (i.op === 'FROM' ? [...acc, [i]] : (acc.at(-1)!.push(i), acc)), []);
const final = stages.at(-1)!;
const tmp = mkdtempSync(join(tmpdir(), 'kube-tidy-docker-'));
const roots = stages.map((_, i) => join(tmp, `stage-${i}`));
const state = { user: '', cmd: [] as string[], env: {} as Record<string, string>, workdir: '' };

/** The .dockerignore beside the Dockerfile: an allow-list plus test files out. */
const ignored = (src: string) => basename(src).endsWith('.test.ts');

/** `ENV A=1 B=x=y`: a value may hold `=` (NODE_OPTIONS=--max-old-space-size=153). */
const envPairs = (args: string) => Object.fromEntries(args.split(/\s+/).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

function replay(stage: Instr[], root: string, isFinal: boolean) {
  let wd = root;
  // ENV applies to the RUN lines after it, as in a real build (warm.cjs passes NODE_OPTIONS on).
  let env: Record<string, string> = {};
  for (const { op, args } of stage.slice(1)) {
    if (op === 'WORKDIR') mkdirSync((wd = join(root, args)), { recursive: true });
    else if (op === 'COPY') {
      const parts = args.split(/\s+/);
      const from = parts[0]!.startsWith('--from=') ? parts.shift()!.slice('--from='.length) : undefined;
      const dest = parts.pop()!;
      const base = from === undefined ? REPO_ROOT : roots[stages.findIndex((s) => s[0]!.args.endsWith(` AS ${from}`))]!;
      for (const src of parts) {
        // An absolute destination is from the image's root (the stage's), not the WORKDIR.
        const at = dest.startsWith('/') ? root : wd;
        const target = dest.endsWith('/') ? join(at, dest, basename(src)) : join(at, dest);
        cpSync(join(base, src), target, { recursive: true, filter: (s) => !ignored(s) });
      }
    } else if (op === 'RUN') {
      if (args.startsWith('npm ci')) symlinkSync(join(REPO_ROOT, 'node_modules'), join(wd, 'node_modules'));
      // On the image's Node (22), as the RUN line would be.
      else execSync(args, { cwd: wd, stdio: 'pipe', timeout: 120_000, env: { ...process.env, ...env, PATH: `${dirname(node22())}:${process.env.PATH}` } });
    } else if (op === 'ENV') env = { ...env, ...envPairs(args) };
    else if (isFinal && op === 'USER') state.user = args;
    else if (isFinal && op === 'CMD') state.cmd = JSON.parse(args) as string[];
  }
  if (isFinal) {
    state.workdir = wd;
    state.env = env;
  }
}

beforeAll(() => {
  stages.forEach((s, i) => replay(s, roots[i]!, i === stages.length - 1));
}, 180_000);

describe('infra/docker/Dockerfile', () => {
  it('is multi-stage on node:22 (bookworm, slim), and the runtime stage copies only from the build stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const s of stages) expect(s[0]!.args).toMatch(/^node:22\.\d+\.\d+-bookworm-slim\b/);
    for (const i of final.filter((i) => i.op === 'COPY')) expect(i.args).toMatch(/^--from=build /);
    // The one RUN there warms the code cache; nothing is installed in the runtime stage.
    expect(final.filter((i) => i.op === 'RUN').map((i) => i.args)).toEqual(['node warm.cjs']);
  });

  it('runs as a numeric non-root user, which runAsNonRoot can verify', () => {
    const [uid] = state.user.split(':');
    expect(uid).toMatch(/^\d+$/);
    expect(Number(uid)).toBeGreaterThan(0);
  });

  it('leaves the runtime stage with the entry, the bundle, its licences and a warm code cache per target, no node_modules', () => {
    expect(readdirSync(state.workdir).sort()).toEqual(['app.cjs', 'client.cjs', 'code-cache', 'release-check.cjs', 'server.cjs', 'standalone.cjs', 'warm.cjs']);
    const caches = readdirSync(join(state.workdir, 'code-cache')).map((f) => f.split('-').slice(0, 2).join('-'));
    expect(caches.sort()).toEqual(
      Object.keys(TARGETS)
        .flatMap((t) => [`${t}-app`, `${t}-client`])
        .sort(),
    );
  });

  it('has /bin/descheduler, the descheduler command, executable on Node 22 as the descheduler image has its binary', () => {
    const bin = join(roots.at(-1)!, 'bin', 'descheduler');
    const env = { ...process.env, PATH: `${dirname(node22())}:${process.env.PATH}` };
    const help = spawnSync(bin, ['--help'], { env, encoding: 'utf8', timeout: 30_000 });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: kube-tidy descheduler --policy-config-file FILE');
    const wrong = spawnSync(bin, ['--policy-config-file=/p.yaml', '--leader-elect'], { env, encoding: 'utf8', timeout: 30_000 });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('leaderElection must be used with deschedulingInterval');
  });

  it("serves a Knative event with the runtime stage's CMD on Node 22 and exits 0 on SIGTERM", async () => {
    expect(state.cmd[0]).toBe('node');
    writeFileSync(join(tmp, 'policy.yaml'), readFileSync(join(REPO_ROOT, 'infra', 'knative', 'policy.yaml')));
    writeFileSync(
      join(tmp, 'kubeconfig'),
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n',
    );
    const server = startServer(
      node22(),
      state.cmd.slice(1),
      { ...state.env, PORT: '0', FUNCTION_TARGET: 'podTerminated', POLICY_FILE: join(tmp, 'policy.yaml'), KUBECONFIG: join(tmp, 'kubeconfig') },
      state.workdir,
    );
    const { port, codeCache } = await server.serving;
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'b', uid: 'u' }, status: { phase: 'Running' } };
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', ...httpMessage(toApiServerSourceEvent('add', pod, 'https://api')) });
    expect(res.status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // Warmed by the image's own Node under the image's own heap flag, so V8 takes it.
    expect(codeCache).toEqual({ app: 'accepted' });
    expect(state.env.NODE_OPTIONS).toBe(IMAGE_NODE_OPTIONS);
  });

  it('keeps test files out of the build context, as its .dockerignore says', () => {
    const build = roots[0]!;
    expect(existsSync(join(build, 'src', 'shared', 'hosts', 'server', 'server.ts'))).toBe(true);
    expect(readFileSync(`${DOCKERFILE}.dockerignore`, 'utf8')).toMatch(/^\*\*\/\*\.test\.ts$/m);
    const tests = execSync(`find ${build}/src -name '*.test.ts' -not -path '*/node_modules/*' | wc -l`, { encoding: 'utf8' }).trim();
    expect(tests).toBe('0');
  });
});
