// `kube-tidy plan --kubeconfig` against things that do not answer, and credential plugins that
// fail: real processes (the CLI, shell-script plugins) and a real TCP server, no cluster. The
// wall-clock bound of --timeout is measured from outside the CLI process, and the plugin's
// processes are checked to be gone afterwards.
import { spawn } from 'node:child_process';
import { runCli, type Ran } from '../../harness/cli-process.js';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAsync } from '../../../shared/hosts/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-cli-timeout-'));
// Longer than any bound asserted below: a CLI that does not stop by then has failed.
const KILL_AFTER_MS = 25_000;
// Per test: a CLI process starts in 1-3 s (tsx) on a loaded machine.
const PROCESS_TEST_MS = 120_000;
// What the bound allows beyond --timeout, measured from outside: the process's own start (tsx,
// seconds on two busy cores) and its exit. Without the bound the command would wait on a server
// that never answers, or a plugin that sleeps 600 s, so any margin well short of that still
// tells a bounded command from one that hangs.
const START_AND_EXIT_MS = 30_000;

function file(name: string, content: string, mode = 0o644): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

const plugin = (name: string, body: string) => file(name, `#!/bin/sh\n${body}\n`, 0o755);

function kubeconfig(name: string, server: string, user: Record<string, unknown>): string {
  return file(
    name,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
  );
}

const execUser = (command: string, extra: Record<string, unknown> = {}) => ({
  exec: { apiVersion: 'client.authentication.k8s.io/v1', command, interactiveMode: 'Never', ...extra },
});

const policyFile = file(
  'policy.yaml',
  stringify({
    apiVersion: 'descheduler/v1alpha2',
    kind: 'DeschedulerPolicy',
    profiles: [{ name: 'p', pluginConfig: [{ name: 'PodLifeTime', args: { states: ['Failed'] } }], plugins: { deschedule: { enabled: ['PodLifeTime'] } } }],
  }),
);

/** The CLI as a process, killed (with its process group) if it runs past KILL_AFTER_MS. */
const cli = (...args: string[]): Promise<Ran> => runCli(args, { killAfterMs: KILL_AFTER_MS });

async function inProcess(...args: string[]): Promise<Ran> {
  const started = Date.now();
  let stdout = '';
  let stderr = '';
  const code = await runAsync(args, { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  return { code, stdout, stderr, ms: Date.now() - started };
}

/** Running, not a zombie waiting for a parent that does not reap it. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  // Up to 30 s (returns as soon as it is gone): a killed process is reaped late on a busy machine.
  for (let i = 0; i < 600 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

// Every pid file a plugin writes, so that afterAll can stop what a failing run left behind.
const pidsWritten: string[] = [];
const pidFile = (name: string) => {
  const path = join(dir, name);
  pidsWritten.push(path);
  return path;
};
const pidIn = (path: string) => Number(readFileSync(path, 'utf8').trim());

// A server that accepts connections and never says a word (not even a TLS handshake).
let silent: Server;
const sockets = new Set<Socket>();
let silentUrl = '';

beforeAll(async () => {
  silent = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const address = silent.address();
  silentUrl = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  // Whatever a failing run left behind.
  for (const path of pidsWritten) {
    const pid = existsSync(path) ? Number(readFileSync(path, 'utf8').trim()) : 0;
    if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const s of sockets) s.destroy();
  await new Promise((r) => silent.close(r));
});

describe('kube-tidy plan --kubeconfig: --timeout bounds the whole command', () => {
  // 6 s, not 3: the plugin must have started before the deadline, after the CLI has loaded
  // (which counts against --timeout, and takes seconds on a loaded machine).
  it(
    "a credential plugin that hangs is stopped at --timeout 6s: exit 1 within it and the process's start, and its processes are gone",
    async () => {
      const shellPid = pidFile('hang.pid');
      const sleepPid = pidFile('hang-sleep.pid');
      // A wrapper script and the command it waits for, as many real plugins are.
      const hang = plugin('hang.sh', `echo $$ > ${shellPid}\nsleep 600 &\necho $! > ${sleepPid}\nwait`);
      const r = await cli('plan', '--kubeconfig', kubeconfig('hang.yaml', silentUrl, execUser(hang)), '--policy', policyFile, '--timeout', '6s');
      expect(r.ms, r.stderr).toBeLessThan(6_000 + START_AND_EXIT_MS);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('kube-tidy: stopped at --timeout 6s');
      expect(r.stderr).toContain(`the credential plugin "${hang}"`);
      expect(r.stderr).not.toContain('unexpected error');
      expect(r.stdout).toBe('');
      expect(await gone(pidIn(shellPid)), 'the plugin script').toBe(true);
      expect(await gone(pidIn(sleepPid)), 'the command the plugin started').toBe(true);
    },
    PROCESS_TEST_MS,
  );

  it(
    'an API server that accepts and never answers is given up at --timeout 3s: exit 1 within it',
    async () => {
      const r = await cli('plan', '--kubeconfig', kubeconfig('silent.yaml', silentUrl, { token: 't' }), '--policy', policyFile, '--timeout', '3s');
      expect(r.ms, r.stderr).toBeLessThan(3_000 + START_AND_EXIT_MS);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('kube-tidy: stopped at --timeout 3s');
      expect(r.stderr).toContain(`nothing listed yet by the API server at ${silentUrl}`);
      expect(r.stderr).not.toContain('unexpected error');
    },
    PROCESS_TEST_MS,
  );

  it(
    'the same with a credential plugin that answers at once (--timeout 6s): the time went on the API server',
    async () => {
      const quick = plugin('quick.sh', `echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}}'`);
      const r = await cli('plan', '--kubeconfig', kubeconfig('quick-silent.yaml', silentUrl, execUser(quick)), '--policy', policyFile, '--timeout', '6s');
      expect(r.ms, r.stderr).toBeLessThan(6_000 + START_AND_EXIT_MS);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`nothing listed yet by the API server at ${silentUrl}`);
    },
    PROCESS_TEST_MS,
  );

  it(
    'a CLI stopped by SIGTERM while a plugin hangs takes the plugin with it',
    async () => {
      const shellPid = pidFile('term.pid');
      const sleepPid = pidFile('term-sleep.pid');
      const hang = plugin('term.sh', `echo $$ > ${shellPid}\nsleep 600 &\necho $! > ${sleepPid}\nwait`);
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'shared/hosts/cli/main.ts', 'plan', '--kubeconfig', kubeconfig('term.yaml', silentUrl, execUser(hang)), '--policy', policyFile],
        { stdio: 'ignore' },
      );
      const exited = new Promise((r) => child.on('exit', r));
      for (let i = 0; i < 1200 && !existsSync(sleepPid); i++) await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(sleepPid), 'the plugin started').toBe(true);
      child.kill('SIGTERM');
      await exited;
      expect(await gone(pidIn(shellPid)), 'the plugin script').toBe(true);
      expect(await gone(pidIn(sleepPid)), 'the command the plugin started').toBe(true);
    },
    PROCESS_TEST_MS,
  );
});

// Exit 1, not 2 (issue: the input was fine; without a credential the cluster could not be read).
describe('kube-tidy plan --kubeconfig: a credential plugin that fails is named, exit 1', () => {
  const ok = (status: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    `echo '${JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status, ...extra })}'`;
  it.each([
    {
      name: 'one that exits 1 names its first line on stderr',
      body: 'echo "error: not logged in, run: example login" >&2\necho "details" >&2\nexit 1',
      says: 'error: not logged in, run: example login (exit code 1)',
    },
    { name: 'one that exits 3 with nothing on stderr', body: 'exit 3', says: 'exit code 3' },
    { name: 'one that prints something other than JSON', body: 'echo "hello, this is not JSON"', says: 'its output is not JSON' },
    {
      name: 'one that prints another kind',
      body: `echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"Status"}'`,
      says: 'it printed kind "Status", not an ExecCredential',
    },
    {
      name: 'one that answers in another apiVersion',
      body: `echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}}'`,
      says: 'it printed apiVersion "client.authentication.k8s.io/v1beta1", the kubeconfig asks for "client.authentication.k8s.io/v1"',
    },
    {
      name: 'one with neither a token nor a client certificate',
      body: ok({}),
      says: 'its ExecCredential has no status.token, nor status.clientCertificateData with status.clientKeyData',
    },
    {
      name: 'one with a certificate and no key',
      body: ok({ clientCertificateData: 'x' }),
      says: 'its ExecCredential has no status.token, nor status.clientCertificateData with status.clientKeyData',
    },
    {
      name: 'one with an expirationTimestamp that is not a time',
      body: ok({ token: 't', expirationTimestamp: 'soon' }),
      says: 'status.expirationTimestamp "soon" is not an RFC 3339 time',
    },
  ])(
    '$name',
    async ({ name, body, says }) => {
      const command = plugin(`${name.replace(/\W+/g, '-')}.sh`, body);
      const r = await inProcess(
        'plan',
        '--kubeconfig',
        kubeconfig(`${name.replace(/\W+/g, '-')}.yaml`, 'https://127.0.0.1:1', execUser(command)),
        '--policy',
        policyFile,
        '--timeout',
        '20s',
      );
      expect(r.stderr).toBe(`kube-tidy: could not authenticate to the cluster: the credential plugin "${command}" failed: ${says}\n`);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
    },
    15_000,
  );

  it("a plugin that is not installed: the kubeconfig's install hint is shown", async () => {
    const r = await inProcess(
      'plan',
      '--kubeconfig',
      kubeconfig('missing.yaml', 'https://127.0.0.1:1', execUser('kube-tidy-no-such-plugin', { installHint: 'install it with: brew install example' })),
      '--policy',
      policyFile,
    );
    expect(r.stderr).toBe(
      'kube-tidy: could not authenticate to the cluster: the credential plugin "kube-tidy-no-such-plugin" failed: no such command (install it with: brew install example)\n',
    );
    expect(r.code).toBe(1);
  });

  it('a plugin that needs a terminal (interactiveMode Always) is refused before it runs', async () => {
    const ran = join(dir, 'always.ran');
    const command = plugin('always.sh', `touch ${ran}\n${ok({ token: 't' })}`);
    const r = await inProcess(
      'plan',
      '--kubeconfig',
      kubeconfig('always.yaml', 'https://127.0.0.1:1', execUser(command, { interactiveMode: 'Always' })),
      '--policy',
      policyFile,
    );
    expect(r.stderr).toBe(
      `kube-tidy: could not authenticate to the cluster: the credential plugin "${command}" failed: its interactiveMode is Always, and kube-tidy runs it without a terminal\n`,
    );
    expect(r.code).toBe(1);
    expect(existsSync(ran)).toBe(false);
  });
});
