#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { loadPolicyText } from '../policy/load.js';
import { PolicyError } from '../policy/errors.js';
import { toDeschedulerPolicy } from '../policy/normalize.js';
import { decide, DEFAULT_PROTECTED_NAMESPACES } from '../plan/decide.js';
import { InputError, readNodes, readPods, readText } from './input.js';
import { MAIN_HELP, PLAN_HELP, POLICY_CHECK_HELP } from './help.js';

// The CLI adapter: parse arguments, read files, call the core, print. Exit 2 for anything
// the user handed in wrong, so scripts can tell bad input from a crash.

class UsageError extends Error {
  constructor(
    message: string,
    readonly help: string,
  ) {
    super(message);
  }
}

type Out = { out: (s: string) => void; err: (s: string) => void };

/** Every command; `bridge` runs until a signal, so only this entry point can start it. */
export async function runAsync(argv: string[], io: Out): Promise<number> {
  if (argv[0] !== 'bridge') return run(argv, io);
  try {
    // Loaded on demand: the offline commands should not pay for the Kubernetes client.
    const { bridgeCommand } = await import('./bridge-command.js');
    return await bridgeCommand(argv.slice(1), io);
  } catch (e) {
    io.err(`kube-tidy: unexpected error: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}

export function run(argv: string[], io: Out): number {
  try {
    const [command, ...rest] = argv;
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.out(MAIN_HELP);
      return command === undefined ? 2 : 0;
    }
    if (command === 'policy') return policyCommand(rest, io);
    if (command === 'plan') return planCommand(rest, io);
    if (command === 'bridge') throw new Error('"bridge" runs until stopped: call runAsync()');
    throw new UsageError(`unknown command "${command}"`, MAIN_HELP);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`kube-tidy: ${e.message}\n\n${e.help}`);
      return 2;
    }
    if (e instanceof PolicyError || e instanceof InputError) {
      io.err(`kube-tidy: ${e.message}\n`);
      return 2;
    }
    io.err(`kube-tidy: unexpected error: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;
type Parsed = { values: Record<string, string | boolean | undefined>; positionals: string[] };

function parse(args: string[], options: OptionSpec, help: string): Parsed {
  try {
    const r = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
    return { values: r.values as Parsed['values'], positionals: r.positionals };
  } catch (e) {
    throw new UsageError((e as Error).message, help);
  }
}

function policyCommand(args: string[], io: Out): number {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h') {
    io.out(POLICY_CHECK_HELP);
    return 0;
  }
  if (sub !== 'check') throw new UsageError(`unknown policy command "${sub ?? ''}"`, POLICY_CHECK_HELP);
  const { values, positionals } = parse(rest, { 'allow-unsupported': { type: 'boolean' } }, POLICY_CHECK_HELP);
  if (values.help) {
    io.out(POLICY_CHECK_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('policy check takes exactly one FILE', POLICY_CHECK_HELP);
  const file = positionals[0]!;
  const { policy, warnings } = loadPolicyFile(file, values['allow-unsupported'] === true);
  for (const w of warnings) io.err(`warning: ${w}\n`);
  io.out(`${JSON.stringify(toDeschedulerPolicy(policy), null, 2)}\n`);
  return 0;
}

function loadPolicyFile(file: string, allowUnsupported: boolean) {
  const text = readText(file);
  try {
    return loadPolicyText(text, { allowUnsupported });
  } catch (e) {
    if (e instanceof PolicyError) throw new InputError(file, e.issues);
    throw e;
  }
}

function planCommand(args: string[], io: Out): number {
  const { values, positionals } = parse(
    args,
    {
      policy: { type: 'string' },
      pods: { type: 'string' },
      nodes: { type: 'string' },
      now: { type: 'string' },
      'protected-namespaces': { type: 'string' },
      'allow-unsupported': { type: 'boolean' },
      explain: { type: 'boolean' },
    },
    PLAN_HELP,
  );
  if (values.help) {
    io.out(PLAN_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, PLAN_HELP);
  const missing = (['policy', 'pods'] as const).filter((k) => typeof values[k] !== 'string');
  if (missing.length > 0) throw new UsageError(`missing ${missing.map((m) => `--${m}`).join(' and ')}`, PLAN_HELP);
  let now = Date.now();
  if (typeof values.now === 'string') {
    // RFC 3339 needs a date, a time and a zone; Date.parse alone would take "2024".
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(values.now) || Number.isNaN(Date.parse(values.now))) {
      throw new UsageError(`--now "${values.now}" is not an RFC 3339 time such as 2026-01-02T15:04:05Z`, PLAN_HELP);
    }
    now = Date.parse(values.now);
  }
  const { policy, warnings } = loadPolicyFile(values.policy as string, values['allow-unsupported'] === true);
  const pods = readPods(values.pods as string);
  const nodes = typeof values.nodes === 'string' ? readNodes(values.nodes) : undefined;
  const protectedNamespaces =
    typeof values['protected-namespaces'] === 'string'
      ? values['protected-namespaces'].split(',').map((s) => s.trim()).filter((s) => s !== '')
      : DEFAULT_PROTECTED_NAMESPACES;
  for (const w of warnings) io.err(`warning: ${w}\n`);

  const plan = decide(policy, { pods, nodes }, now, { protectedNamespaces });
  for (const d of plan.decisions) {
    const line = { namespace: d.namespace, name: d.name, uid: d.uid, strategy: d.strategy, action: d.action, reason: d.reason };
    io.out(`${JSON.stringify(line)}\n`);
  }
  if (values.explain) {
    for (const k of plan.kept) io.err(`kept ${k.namespace}/${k.name} (${k.strategy}): ${k.reason}\n`);
  }
  return 0;
}

// Run only as a program, not when imported by tests.
if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/kube-tidy')) {
  void runAsync(process.argv.slice(2), {
    out: (s) => process.stdout.write(s),
    err: (s) => process.stderr.write(s),
  }).then((code) => {
    process.exitCode = code;
  });
}
