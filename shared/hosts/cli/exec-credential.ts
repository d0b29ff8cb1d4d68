// Credential plugins (a kubeconfig user's `exec`), run by kube-tidy rather than by client-node.
// client-node's ExecAuth spawns the plugin asynchronously but with no deadline and nothing
// that stops it, before any request timeout applies: a plugin that hangs held the CLI past
// --timeout and outlived it. It also sets no KUBERNETES_EXEC_INFO, re-runs a plugin whose
// credential has no expirationTimestamp on every request, and fails with the plugin's raw
// stderr or a SyntaxError. Here the plugin runs as client-go runs it (the ExecCredential
// protocol: KUBERNETES_EXEC_INFO in, an ExecCredential out, cached until it expires), in its
// own process group so that stopping it at the deadline stops whatever it started too.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { readFileSync } from 'node:fs';
import type { Cluster, KubeConfig, User } from '@kubernetes/client-node';
import { KubeConfigError } from '../../kube/config.js';

const API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];
/** What an exec user becomes, so that only our authenticator (not client-node's ExecAuth) answers for it. */
const PROVIDER = 'kube-tidy-exec';
const MAX_OUTPUT = 1 << 20;
const KILL_GRACE_MS = 500;

/**
 * The plugin could not be run or did not give a credential: kube-tidy could not authenticate to
 * the cluster (exit 1, as any cluster that cannot be read), not a kubeconfig it could not read
 * (KubeConfigError, exit 2: malformed, a missing context, an exec entry without a command).
 */
export class CredentialPluginError extends Error {
  override name = 'CredentialPluginError';
  constructor(
    readonly command: string,
    reason: string,
  ) {
    super(`the credential plugin "${command}" failed: ${reason}`);
  }
}

interface ExecSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  apiVersion: string;
  interactiveMode?: string;
  installHint?: string;
  provideClusterInfo: boolean;
}

interface Credential {
  token?: string;
  cert?: string;
  key?: string;
  expiresAt?: number;
}

export interface ExecCredentials {
  /** Runs the current user's plugin now (when it has one): a failure shows before any request does. */
  ready(): Promise<void>;
  /** The command of a plugin that is running now, if any (for the timeout message). */
  running(): string | undefined;
}

type Authenticator = Parameters<KubeConfig['addAuthenticator']>[0];

/**
 * Takes over every exec user of `kc`: their plugins run here, stopped (with their process
 * group) when `signal` aborts. Call before any client is built from `kc`.
 */
export function execCredentials(kc: KubeConfig, signal: AbortSignal): ExecCredentials {
  const raw = new Map<string, unknown>();
  const users = kc.getUsers().map((u): User => {
    if (!u.exec) return u;
    raw.set(u.name, u.exec);
    return { ...u, exec: undefined, authProvider: { name: PROVIDER } };
  });
  kc.loadFromOptions({ clusters: kc.getClusters(), users, contexts: kc.getContexts(), currentContext: kc.getCurrentContext() });

  const entries = new Map<string, { promise: Promise<Credential>; value?: Credential }>();
  const running = new Set<string>();
  const credentialOf = (user: string): Promise<Credential> => {
    const known = entries.get(user);
    // A credential without an expirationTimestamp lasts as long as the process, as in client-go.
    if (known && (known.value?.expiresAt === undefined || known.value.expiresAt > Date.now())) return known.promise;
    const spec = specOf(user, raw.get(user));
    running.add(spec.command);
    const entry: { promise: Promise<Credential>; value?: Credential } = {
      promise: runPlugin(spec, kc.getCurrentCluster() ?? undefined, signal).finally(() => running.delete(spec.command)),
    };
    entry.promise.then(
      (v) => (entry.value = v),
      () => undefined, // the caller gets the failure; it stays cached, so a pass fails fast
    );
    entries.set(user, entry);
    return entry.promise;
  };

  const authenticator: Authenticator = {
    isAuthProvider: (user) => (user.authProvider as { name?: unknown } | undefined)?.name === PROVIDER,
    applyAuthentication: async (user, opts) => {
      const c = await credentialOf(user.name);
      if (c.cert !== undefined && c.key !== undefined) Object.assign(opts, { cert: c.cert, key: c.key });
      if (c.token !== undefined) opts.headers = { ...opts.headers, Authorization: `Bearer ${c.token}` };
    },
  };
  kc.addAuthenticator(authenticator);
  return {
    ready: async () => {
      const user = kc.getCurrentUser();
      if (user && raw.has(user.name)) await credentialOf(user.name);
    },
    running: () => [...running][0],
  };
}

function specOf(user: string, exec: unknown): ExecSpec {
  const e = (exec ?? {}) as Record<string, unknown>;
  const problem = (what: string) => new KubeConfigError(`kubeconfig user "${user}": exec ${what}`);
  if (typeof e.command !== 'string' || e.command === '') throw problem('has no command');
  if (typeof e.apiVersion !== 'string' || !API_VERSIONS.includes(e.apiVersion)) {
    throw problem(`apiVersion ${JSON.stringify(e.apiVersion ?? '')} is not one kube-tidy speaks (${API_VERSIONS.join(' or ')})`);
  }
  const args = e.args ?? [];
  if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) throw problem('args is not a list of strings');
  const env = e.env ?? [];
  if (!Array.isArray(env) || env.some((v: { name?: unknown; value?: unknown }) => typeof v?.name !== 'string' || typeof v.value !== 'string'))
    throw problem('env is not a list of {name, value}');
  return {
    command: e.command,
    args: args as string[],
    env: Object.fromEntries((env as { name: string; value: string }[]).map((v) => [v.name, v.value])),
    apiVersion: e.apiVersion,
    ...(typeof e.interactiveMode === 'string' ? { interactiveMode: e.interactiveMode } : {}),
    ...(typeof e.installHint === 'string' ? { installHint: e.installHint } : {}),
    provideClusterInfo: e.provideClusterInfo === true,
  };
}

/** KUBERNETES_EXEC_INFO: never interactive (stdin is /dev/null); the cluster when asked for. */
function execInfo(spec: ExecSpec, cluster: Cluster | undefined): string {
  const spec_: Record<string, unknown> = { interactive: false };
  if (spec.provideClusterInfo && cluster) {
    const ca = cluster.caData ?? (cluster.caFile ? readFileSync(cluster.caFile).toString('base64') : undefined);
    spec_.cluster = {
      server: cluster.server,
      ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
      ...(cluster.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
      ...(ca ? { 'certificate-authority-data': ca } : {}),
      ...(cluster.proxyUrl ? { 'proxy-url': cluster.proxyUrl } : {}),
    };
  }
  return JSON.stringify({ apiVersion: spec.apiVersion, kind: 'ExecCredential', spec: spec_ });
}

const TERMINATING: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function runPlugin(spec: ExecSpec, cluster: Cluster | undefined, signal: AbortSignal): Promise<Credential> {
  const fail = (reason: string) => new CredentialPluginError(spec.command, reason);
  if (spec.interactiveMode === 'Always') return Promise.reject(fail('its interactiveMode is Always, and kube-tidy runs it without a terminal'));
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<Credential>((resolve, reject) => {
    const child = spawnPlugin(spec, cluster);
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let settled = false;
    const { killGroup, stop } = groupKiller(child);
    // The group is not the terminal's: if kube-tidy itself is stopped, it takes the plugin along.
    const onExit = () => killGroup('SIGKILL');
    const onSignal = (sig: NodeJS.Signals) => {
      killGroup('SIGKILL');
      cleanup();
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
    };
    const onAbort = () => {
      stop();
      settle(() => reject(signal.reason));
    };
    const cleanup = () => {
      signal.removeEventListener('abort', onAbort);
      process.removeListener('exit', onExit);
      for (const s of TERMINATING) process.removeListener(s, onSignal);
    };
    const settle = (then: () => void) => {
      if (settled) return;
      settled = true;
      cleanup();
      then();
    };
    signal.addEventListener('abort', onAbort);
    process.on('exit', onExit);
    for (const s of TERMINATING) process.on(s, onSignal);

    child.stdout.on('data', (b: Buffer) => {
      outBytes += b.length;
      if (outBytes <= MAX_OUTPUT) out.push(b);
      else if (!settled) {
        stop();
        settle(() => reject(fail(`its output is larger than ${MAX_OUTPUT >> 20} MiB`)));
      }
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      if (err.length < 64 * 1024) err += s;
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      const reason =
        e.code === 'ENOENT' ? `no such command${spec.installHint ? ` (${spec.installHint.trim()})` : ''}` : `it could not be started (${e.code ?? e.message})`;
      settle(() => reject(fail(reason)));
    });
    child.on('close', (code, sig) => {
      if (settled) return;
      if (code !== 0) stop(); // whatever it left running
      try {
        const credential = credentialAtExit(spec, { code, sig, stderr: err, stdout: out }, fail);
        settle(() => resolve(credential));
      } catch (e) {
        settle(() => reject(e));
      }
    });
  });
}

function spawnPlugin(spec: ExecSpec, cluster: Cluster | undefined): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(spec.command, spec.args, {
    env: { ...process.env, ...spec.env, KUBERNETES_EXEC_INFO: execInfo(spec, cluster) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a wrapper script's children are stopped with it.
    detached: true,
  });
}

/** Signals the plugin's whole process group; stop asks, then kills after KILL_GRACE_MS. */
function groupKiller(child: { pid?: number }): { killGroup(sig: NodeJS.Signals): void; stop(): void } {
  const killGroup = (sig: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  const stop = () => {
    killGroup('SIGTERM');
    setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
  };
  return { killGroup, stop };
}

/** The credential a finished plugin printed; a failed exit is thrown with its stderr's first line. */
function credentialAtExit(
  spec: ExecSpec,
  exit: { code: number | null; sig: NodeJS.Signals | null; stderr: string; stdout: Buffer[] },
  fail: (reason: string) => Error,
): Credential {
  if (exit.code !== 0) {
    const firstLine = exit.stderr
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim()
      .slice(0, 300);
    const how = exit.sig ? `killed by ${exit.sig}` : `exit code ${exit.code}`;
    throw fail(firstLine ? `${firstLine} (${how})` : how);
  }
  return parseCredential(spec, Buffer.concat(exit.stdout).toString('utf8'), fail);
}

const quoted = (v: unknown) => JSON.stringify(typeof v === 'string' ? v.slice(0, 100) : (v ?? ''));
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

// The output may hold a credential: no message quotes it, only names what is wrong with it.
function parseCredential(spec: ExecSpec, text: string, fail: (reason: string) => Error): Credential {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    throw fail(text.trim() === '' ? 'it printed nothing' : 'its output is not JSON');
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw fail('its output is not a JSON object');
  const o = obj as Record<string, unknown>;
  if (o.kind !== 'ExecCredential') throw fail(`it printed kind ${quoted(o.kind)}, not an ExecCredential`);
  if (o.apiVersion !== spec.apiVersion) throw fail(`it printed apiVersion ${quoted(o.apiVersion)}, the kubeconfig asks for "${spec.apiVersion}"`);
  const status = (typeof o.status === 'object' && o.status !== null ? o.status : {}) as Record<string, unknown>;
  const text_ = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const token = text_(status.token);
  const cert = text_(status.clientCertificateData);
  const key = text_(status.clientKeyData);
  if (token === undefined && (cert === undefined || key === undefined))
    throw fail('its ExecCredential has no status.token, nor status.clientCertificateData with status.clientKeyData');
  let expiresAt: number | undefined;
  if (status.expirationTimestamp !== undefined) {
    const t = status.expirationTimestamp;
    expiresAt = typeof t === 'string' && RFC3339.test(t) ? Date.parse(t) : NaN;
    if (Number.isNaN(expiresAt)) throw fail(`status.expirationTimestamp ${quoted(t)} is not an RFC 3339 time`);
  }
  return {
    ...(token === undefined ? {} : { token }),
    ...(cert !== undefined && key !== undefined ? { cert, key } : {}),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
}
