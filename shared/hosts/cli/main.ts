#!/usr/bin/env node
import { MetricsRecorder } from '../../metrics/recorder.js';
import { Notifier } from '../../notify/notifier.js';
import { parseArgs } from 'node:util';
import { PolicyError } from '../../policy/errors.js';
import { toDeschedulerPolicy } from '../../policy/normalize.js';
import { abortCut, consideredIn } from '../../brakes/core/abort.js';
import { formatWindow, metersOf, subjectOf } from '../../brakes/core/meters.js';
import { DEFAULT_BRAKES, type BrakesPolicy } from '../../policy/brakes-schema.js';
import type { Decision } from '../../selection/decision.js';
import type { Pod } from '../../model/objects.js';
import type { Policy } from '../../policy/policy.js';
import { decide, DEFAULT_PROTECTED_NAMESPACES } from '../../selection/decide.js';
import { InputError, loadPolicyFile, protectedNamespacesOf, readNodes, readPods, unprotectedWarning } from './input.js';
import { MAIN_HELP, PLAN_HELP, POLICY_CHECK_HELP, RBAC_HELP } from './help.js';
import { ttlClusterRole, ttlDueRole } from './rbac.js';
import { DueEnv } from '../../cleanup/due/config.js';
import { chooseFormat, FormatError, jsonLine, table } from './output.js';
import type { NewSelectionGate } from '../../selection/diff.js';
import { parseAgainst, parseMaxNew } from './diff-args.js';
import { offlineDiff } from './diff-offline.js';

/** A `plan` that names a cluster (live.ts) rather than a pod dump. */
const isLivePlan = (args: string[]): boolean => args.some((a) => /^--(kubeconfig|context)(=|$)/.test(a));

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

/**
 * `stdoutIsTTY` picks the default output format (output.ts); tests leave it unset (pipes).
 * `notifier`: where a live pass's decisions go as CloudEvents (the program's, from EVENTS_SINK
 * and the rest of its environment); none: off. `metrics`: the program's recorder, built once at
 * start, which a live pass's handle and clients count in; none: not counted.
 */
type Out = { out: (s: string) => void; err: (s: string) => void; stdoutIsTTY?: boolean; notifier?: Notifier; metrics?: MetricsRecorder };

/**
 * Every command; `bridge` and the commands that talk to a cluster only through this entry point.
 * `startedAt`: where a live command's --timeout counts from (the program passes its own start).
 */
export async function runAsync(argv: string[], io: Out, startedAt = Date.now()): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'run' || (command === 'plan' && isLivePlan(rest))) {
    // Loaded on demand, as the bridge: the offline commands do not load the Kubernetes client.
    const { liveCommand } = await import('./live.js');
    return liveCommand(command, rest, io, startedAt);
  }
  if (command === 'descheduler') {
    // Loaded on demand: the descheduler's process, long-running unless its interval is 0.
    const { deschedulerCommand } = await import('../descheduler/index.js');
    return deschedulerCommand(rest, io);
  }
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
    if (command === 'rbac') return rbacCommand(rest, io);
    if (command === 'bridge') throw new Error('"bridge" runs until stopped: call runAsync()');
    if (command === 'run' || (command === 'plan' && isLivePlan(rest))) throw new Error(`"${command}" against a cluster is asynchronous: call runAsync()`);
    throw new UsageError(`unknown command "${command}"`, MAIN_HELP);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`kube-tidy: ${e.message}\n\n${e.help}`);
      return 2;
    }
    if (e instanceof FormatError) {
      io.err(`kube-tidy: ${e.message}\n\n${PLAN_HELP}`);
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

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;
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

function rbacCommand(args: string[], io: Out): number {
  const { values } = parse(
    args,
    {
      policy: { type: 'string' },
      name: { type: 'string' },
      namespace: { type: 'string' },
      'due-shards': { type: 'string' },
      resource: { type: 'string', multiple: true },
    },
    RBAC_HELP,
  );
  if (values.help) {
    io.out(RBAC_HELP);
    return 0;
  }
  if (typeof values.policy !== 'string') throw new UsageError('rbac needs --policy FILE', RBAC_HELP);
  const overrides = new Map<string, string>();
  for (const r of (values.resource as unknown as string[] | undefined) ?? []) {
    const m = /^([A-Z][A-Za-z0-9]*)=([a-z0-9][a-z0-9.-]*)$/.exec(r);
    if (!m) throw new UsageError(`--resource ${JSON.stringify(r)}: expected Kind=plural, such as Ingress=ingresses`, RBAC_HELP);
    overrides.set(m[1]!, m[2]!);
  }
  // The due lists' own settings (DUE_SHARDS, DUE_NAMESPACE): the same bounds and defaults.
  const shards = DueEnv.shape.DUE_SHARDS.safeParse(values['due-shards']);
  if (!shards.success) throw new UsageError(`--due-shards ${JSON.stringify(values['due-shards'])}: ${shards.error.issues[0]?.message} (DUE_SHARDS)`, RBAC_HELP);
  const namespace = DueEnv.shape.DUE_NAMESPACE.safeParse(values.namespace);
  if (!namespace.success) throw new UsageError(`--namespace ${JSON.stringify(values.namespace)}: ${namespace.error.issues[0]?.message}`, RBAC_HELP);
  const { policy, warnings } = loadPolicyFile(values.policy, false);
  for (const w of warnings) io.err(`warning: ${w}\n`);
  const rules = policy.ttl ?? [];
  if (rules.length === 0) {
    io.err('kube-tidy: the policy has no kubeTidy.ttl rules: no ClusterRole is needed for them\n');
    return 0;
  }
  const name = typeof values.name === 'string' ? values.name : 'kube-tidy-ttl';
  io.out(`${ttlClusterRole(rules, name, overrides)}---\n${ttlDueRole(rules, `${name}-due`, { namespace: namespace.data, shards: shards.data })}`);
  return 0;
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
      output: { type: 'string', short: 'o' },
      // plan --against (diff-*.ts)
      against: { type: 'string' },
      'max-new': { type: 'string' },
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
  const diff = offlineDiffFlags(values);
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
  const protection = protectedNamespacesOf(values['protected-namespaces'] as string | undefined, DEFAULT_PROTECTED_NAMESPACES);
  if ('problem' in protection) throw new UsageError(protection.problem, PLAN_HELP);
  const protectedNamespaces = protection.namespaces;
  const format = chooseFormat(values.output as string | undefined, io.stdoutIsTTY === true);
  for (const w of warnings) io.err(`warning: ${w}\n`);
  const unprotected = unprotectedWarning(protection.removed);
  if (unprotected) io.err(unprotected);
  if (diff) {
    const against = loadPolicyFile(diff.file, values['allow-unsupported'] === true);
    for (const w of against.warnings) io.err(`warning: --against ${diff.file}: ${w}\n`);
    offlineObjectsNote([policy, against.policy], io);
    const old = { policy: against.policy, name: diff.file };
    return offlineDiff({ policy, against: old, pods, nodes, now, protectedNamespaces, gate: diff.gate, format }, io);
  }

  offlineObjectsNote([policy], io);
  const plan = decide(policy, { pods, nodes }, now, { protectedNamespaces });
  const decisions = withBrakes(policy, pods, plan.decisions, io);
  if (format === 'json') {
    for (const d of decisions) io.out(jsonLine({ namespace: d.namespace, name: d.name, uid: d.uid, strategy: d.strategy, action: d.action, reason: d.reason }));
  } else {
    io.out(
      decisions.length
        ? table(
            ['POD', 'STRATEGY', 'ACTION', 'REASON'],
            decisions.map((d) => [`${d.namespace}/${d.name}`, d.strategy, d.action, d.reason]),
          )
        : 'nothing to do: the policy selects no pod\n',
    );
  }
  if (values.explain) {
    for (const k of plan.kept) io.err(`kept ${k.namespace}/${k.name} (${k.strategy}): ${k.reason}\n`);
  }
  return 0;
}

/**
 * One line when a policy has kubeTidy.objects rules: a pod dump holds no Jobs, claims or
 * Workloads, nor what their owner rules read (CronJobs, StatefulSets, the pods naming a
 * claim), so an offline plan cannot decide them and says so rather than showing nothing.
 */
function offlineObjectsNote(policies: readonly Policy[], io: Out): void {
  const rules = policies.reduce((n, p) => n + (p.objects?.length ?? 0), 0);
  if (rules > 0) io.err(`objects: ${rules} kubeTidy.objects rules not planned: a pod dump has no Jobs, claims or Workloads; plan them with --kubeconfig\n`);
}

/** `--against FILE [--max-new N|P%]` of an offline plan, checked; undefined for a plain plan. */
function offlineDiffFlags(values: Parsed['values']): { file: string; gate: NewSelectionGate | undefined } | undefined {
  const { against, explain } = values;
  const maxNew = values['max-new'];
  if (against === undefined) {
    if (maxNew !== undefined) throw new UsageError('--max-new gates a diff: add --against FILE', PLAN_HELP);
    return undefined;
  }
  const problems: string[] = [];
  const parsed = parseAgainst(String(against));
  if ('problem' in parsed) problems.push(parsed.problem);
  else if (!('file' in parsed)) problems.push(`--against ${String(against)} reads a cluster: add --kubeconfig FILE (offline, --against takes a policy FILE)`);
  const gate = maxNew === undefined ? undefined : parseMaxNew(String(maxNew));
  if (gate && 'problem' in gate) problems.push(gate.problem);
  if (explain) problems.push('--explain is for a plan: with --against, each side of the diff says why');
  if (problems.length > 0) throw new UsageError(problems.join('\n  '), PLAN_HELP);
  return { file: (parsed as { file: string }).file, gate: gate as NewSelectionGate | undefined };
}

/**
 * The brakes as an offline plan can show them (docs/brakes.md): which hold (on stderr), and
 * where a percentage abort would stop a pass over this dump. What other passes and events
 * already spent lives in the cluster's ledger, which a dump does not have.
 */
function withBrakes(policy: Policy, pods: readonly Pod[], decisions: Decision[], io: Out): Decision[] {
  const brakes: BrakesPolicy = policy.brakes ?? DEFAULT_BRAKES;
  const meters = metersOf(policy);
  if (meters.length === 0 && brakes.abort.length === 0) return decisions;
  const held = meters.map((m) => `${m.name} ${m.max} per ${formatWindow(m.windowMs)} (${m.scope})`);
  const aborts = brakes.abort.map((a) => `abort past ${a.percent}% (${a.scope}${a.minPods ? `, ${a.minPods}+ pods` : ''})`);
  io.err(`brakes: ${[...held, ...aborts].join('; ')}; a live run charges them in the cluster's shared ledger across passes and events\n`);
  if (brakes.abort.length === 0) return decisions;
  const byUid = new Map(pods.map((p) => [p.metadata.uid ?? '', p]));
  const considered = new Map<string, number>();
  for (const p of pods) for (const id of consideredIn(brakes.abort, subjectOf(p))) considered.set(id, (considered.get(id) ?? 0) + 1);
  const cut = abortCut(
    decisions.map((d) => subjectOf(byUid.get(d.uid) ?? { metadata: { namespace: d.namespace } })),
    considered,
    brakes.abort,
  );
  if (!cut.trip) return decisions;
  io.err(`abort: ${cut.why}: a pass would remove the first ${cut.keep} and stop\n`);
  return decisions.slice(0, cut.keep);
}

// Run only as a program, not when imported by tests.
if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/kube-tidy')) {
  // What the program counts in: nothing reads it (no /metrics, no push), as before; the handle carries it as every host's does.
  const metrics = new MetricsRecorder(process.env);
  const notifier = programNotifier(metrics);
  void runAsync(
    process.argv.slice(2),
    {
      out: (s) => process.stdout.write(s),
      err: (s) => process.stderr.write(s),
      stdoutIsTTY: process.stdout.isTTY === true,
      notifier,
      metrics,
    },
    // --timeout bounds the command as its user sees it: loading the program counts too.
    performance.timeOrigin,
  ).then(async (code) => {
    // With EVENTS_SINK set, the pass's CloudEvents still queued go out (for at most EVENTS_FLUSH_MS).
    await notifier.flush();
    process.exitCode = code;
    // The answer is given: whatever is still being stopped (an aborted request's socket, a
    // credential plugin's process group) does not hold the process past --timeout's margin.
    setTimeout(() => process.exit(code), 1000).unref();
  });
}

/** The program's CloudEvents out, from its environment (docs/observing.md "Decisions as CloudEvents"); a bad setting sends nothing, as the functions' processes. */
function programNotifier(metrics: MetricsRecorder): Notifier {
  try {
    return Notifier.fromEnv(process.env, Date.now, undefined, metrics);
  } catch {
    return Notifier.off();
  }
}
