// `kube-tidy bridge`: flags in, startBridge, run until SIGINT/SIGTERM, drain, exit 0.
import type { KubeConfig } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { delimiter } from 'node:path';
import { parseArgs } from 'node:util';
import { startBridge, type BridgeOptions } from '../bridge/bridge.js';
import { parseKinds, UnknownKindError, type KindInfo } from '../bridge/kinds.js';
import { kubeClients } from '../../kube/clients.js';
import { discoverTtlKinds } from '../../objects/index.js';
import type { TtlRule } from '../../policy/ttl-schema.js';
import { InputError, loadPolicyFile } from './input.js';
import { KubeConfigError, loadKubeConfig } from '../../kube/config.js';
import { createLogger } from '../../log.js';
import { parseGoDuration } from '../../policy/duration.js';
import { BRIDGE_HELP } from './help.js';

type Out = { out: (s: string) => void; err: (s: string) => void };

export interface BridgeCommandDeps {
  /** Where stop signals come from (tests pass an EventEmitter). */
  signals?: Pick<NodeJS.Process, 'once' | 'removeListener'>;
  env?: NodeJS.ProcessEnv;
}

class Usage extends Error {}

const OPTIONS = {
  kubeconfig: { type: 'string' },
  sink: { type: 'string' },
  kinds: { type: 'string' },
  policy: { type: 'string' },
  namespace: { type: 'string' },
  'label-selector': { type: 'string' },
  retries: { type: 'string' },
  timeout: { type: 'string' },
  concurrency: { type: 'string' },
  'queue-size': { type: 'string' },
  'drain-timeout': { type: 'string' },
  'stats-interval': { type: 'string' },
  structured: { type: 'boolean' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function bridgeCommand(args: string[], io: Out, deps: BridgeCommandDeps = {}): Promise<number> {
  let parsed: { options: Omit<BridgeOptions, 'kubeConfig' | 'log'>; kubeconfig: string; drainMs: number; verbose: boolean; ttl: TtlRule[] } | 'help';
  try {
    parsed = parse(args, deps.env ?? process.env);
  } catch (e) {
    if (e instanceof InputError) {
      io.err(`kube-tidy: ${e.message}\n`);
      return 2;
    }
    if (!(e instanceof Usage || e instanceof UnknownKindError)) throw e;
    io.err(`kube-tidy: ${e.message}\n\n${BRIDGE_HELP}`);
    return 2;
  }
  if (parsed === 'help') {
    io.out(BRIDGE_HELP);
    return 0;
  }
  let kubeConfig: KubeConfig;
  try {
    // The shared loader: its errors never quote the file, which may hold a token.
    kubeConfig = loadKubeConfig({ kubeconfig: parsed.kubeconfig });
  } catch (e) {
    if (!(e instanceof KubeConfigError)) throw e;
    io.err(`kube-tidy: ${e.message}\n`);
    return 2;
  }
  const log = createLogger({ destination: { write: io.err }, level: parsed.verbose ? 'debug' : 'info' });
  const signals = deps.signals ?? process;
  // Listen before starting so a signal during the first LIST is not the default (kill).
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const stopRequested = new Promise<NodeJS.Signals>((resolve) => (onSignal = resolve));
  signals.once('SIGINT', onSignal);
  signals.once('SIGTERM', onSignal);
  try {
    let bridge;
    try {
      // --policy: the kinds its ttl rules name, as the cluster serves them (discovery: their plural is never guessed).
      const found: KindInfo[] = parsed.ttl.length
        ? (await discoverTtlKinds(kubeClients(kubeConfig), parsed.ttl, log)).map(({ kind, apiVersion, resource }) => ({ kind, apiVersion, resource }))
        : [];
      const kinds = [...(parsed.options.kinds ?? []), ...found.filter((k) => !parsed.options.kinds?.includes(k.kind))];
      bridge = await Promise.race([startBridge({ ...parsed.options, kinds, kubeConfig, log }), stopRequested]);
    } catch (e) {
      io.err(`kube-tidy: bridge could not start: ${(e as Error).message}\n`);
      return 1;
    }
    if (typeof bridge === 'string') return 0; // stopped before it started
    const signal = await stopRequested;
    log.info({ signal, drainTimeoutMs: parsed.drainMs }, 'stopping: watch closed, finishing deliveries');
    await bridge.stop({ deadlineMs: parsed.drainMs });
    return 0;
  } finally {
    signals.removeListener('SIGINT', onSignal);
    signals.removeListener('SIGTERM', onSignal);
  }
}

function parse(args: string[], env: NodeJS.ProcessEnv) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new Usage((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help' as const;
  if (positionals.length > 0) throw new Usage(`unexpected argument "${positionals[0]}"`);
  const kubeconfig = values.kubeconfig ?? env.KUBECONFIG;
  const problems: string[] = [];
  if (!kubeconfig) problems.push('missing --kubeconfig (or $KUBECONFIG)');
  else for (const file of kubeconfig.split(delimiter).filter((f) => f && !existsSync(f))) problems.push(`--kubeconfig ${file}: no such file`);
  if (values.sink === undefined) problems.push('missing --sink');
  else if (!/^https?:$/.test(safeUrl(values.sink)?.protocol ?? '')) problems.push(`--sink "${values.sink}" is not an http or https URL`);
  const int = (flag: keyof typeof OPTIONS, min: number, fallback: number): number => {
    const v = values[flag];
    if (typeof v !== 'string') return fallback;
    if (!/^\d+$/.test(v) || Number(v) < min) problems.push(`--${flag} "${v}" is not a whole number of at least ${min}`);
    return Number(v);
  };
  const duration = (flag: keyof typeof OPTIONS, fallbackMs: number, allowZero: boolean): number => {
    const v = values[flag];
    if (typeof v !== 'string') return fallbackMs;
    const ms = parseGoDuration(v);
    if (ms === undefined || ms < 0 || (ms === 0 && !allowZero))
      problems.push(`--${flag} "${v}" is not a ${allowZero ? '' : 'positive '}duration such as 10s or 500ms`);
    return ms ?? fallbackMs;
  };
  const retries = int('retries', 0, 5);
  const timeoutMs = duration('timeout', 10_000, false);
  const concurrency = int('concurrency', 1, 4);
  const queueSize = int('queue-size', 1, 1000);
  const drainMs = duration('drain-timeout', 10_000, true);
  const statsIntervalMs = duration('stats-interval', 60_000, true);
  // With --policy alone, only the policy's ttl kinds; Pod is the default of a bridge given neither.
  let kinds: string[] = values.policy === undefined ? ['Pod'] : [];
  if (values.kinds !== undefined) {
    try {
      kinds = parseKinds(values.kinds).map((k) => k.kind);
    } catch (e) {
      problems.push(`--kinds: ${(e as Error).message}`);
    }
  }
  if (problems.length > 0) throw new Usage(problems.join('\n  '));
  const ttl = values.policy === undefined ? [] : (loadPolicyFile(values.policy, true).policy.ttl ?? []);
  const options: Omit<BridgeOptions, 'kubeConfig' | 'log'> = {
    sink: values.sink!,
    kinds,
    retry: { retries, timeoutMs },
    concurrency,
    queueSize,
    statsIntervalMs,
    mode: values.structured ? 'structured' : 'binary',
    ...(values.namespace ? { namespace: values.namespace } : {}),
    ...(values['label-selector'] ? { labelSelector: values['label-selector'] } : {}),
  };
  return { options, kubeconfig: kubeconfig!, drainMs, verbose: values.verbose === true, ttl };
}

function safeUrl(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}
