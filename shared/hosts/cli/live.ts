// `kube-tidy plan --kubeconfig` and `kube-tidy run`: the same full pass as the invoke and
// sweep targets (cleanup/io/pass.ts: paginated lists, the limits over the whole cluster, the
// one writer), from a laptop. A plan sends every would-be write with dryRun=All, so the API
// server answers as it would for real: admission, preconditions and PodDisruptionBudgets
// (a PDB at its limit shows as "blocked"), and nothing is persisted. A run asks for --yes.
import { setLongTimeout } from '../../config/long-timeout.js';
import { parseArgs } from 'node:util';
import { runPass } from '../../cleanup/index.js';
import type { ActResult } from '../../cleanup/io/act.js';
import { ConfigError } from '../../config/env.js';
import { describeKubeConfig, KubeConfigError, loadKubeConfig } from '../../kube/config.js';
import { classifyKubeError, KubeError, toKubeError } from '../../kube/errors.js';
import { kubeClients, type KubeClients } from '../../kube/clients.js';
import { createLogger, type Logger } from '../../log.js';
import { PodEventSeries } from '../../kube/event-series.js';
import { hostname } from 'node:os';
import { MetricsRecorder } from '../../metrics/recorder.js';
import { Notifier } from '../../notify/notifier.js';
import { DEFAULT_PROTECTED_NAMESPACES } from '../../selection/decide.js';
import { parseGoDuration } from '../../policy/duration.js';
import { PolicyError } from '../../policy/errors.js';
import { parseSelectorString } from '../../policy/selector-string.js';
import type { LoadedPolicy } from '../../policy/policy.js';
import { CredentialPluginError, execCredentials, type ExecCredentials } from './exec-credential.js';
import { cliHandle } from './handle.js';
import { chooseLedger, DEFAULT_LEDGER_NAMESPACE } from './ledger.js';
import { brakeSetOf, hasBrakes } from '../../brakes/io/brakes.js';
import { BRAKES_NAME } from '../../brakes/io/store.js';
import { LIVE_PLAN_HELP, RUN_HELP } from './help.js';
import { InputError, loadPolicyFile, loadPolicyFrom, protectedNamespacesOf, unprotectedWarning } from './input.js';
import { chooseFormat, FormatError, jsonLine, resultText, table } from './output.js';
import { liveDiffFlags } from './diff-args.js';
import { diffPass } from './diff-live.js';
import { liveObjects, type LiveObjects } from './live-objects.js';
import type { ObjectsPassSummary } from '../../objects/index.js';
import { PassReports } from '../../cleanup/reports/index.js';

/** `notifier`: the program's CloudEvents out (main.ts); none: off. `metrics`: the program's recorder (main.ts); none: not counted. */
export type Out = { out: (s: string) => void; err: (s: string) => void; stdoutIsTTY?: boolean; notifier?: Notifier; metrics?: MetricsRecorder };

/** The ConfigMap the generated manifests deploy the policy in: what the deployed kube-tidy reads. */
export const DEFAULT_POLICY_CONFIGMAP = 'kube-tidy/kube-tidy-policy';

const OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  'label-selector': { type: 'string', short: 'l' },
  policy: { type: 'string' },
  'policy-configmap': { type: 'string' },
  'protected-namespaces': { type: 'string' },
  'allow-unsupported': { type: 'boolean' },
  'chunk-size': { type: 'string' },
  'brakes-namespace': { type: 'string' },
  timeout: { type: 'string' },
  output: { type: 'string', short: 'o' },
  explain: { type: 'boolean' },
  yes: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  // plan --against (diff-*.ts)
  against: { type: 'string' },
  'max-new': { type: 'string' },
  // --report (shared/cleanup/reports): the pass's results as OpenReports in the cluster
  report: { type: 'boolean' },
} as const;

class Usage extends Error {}

export async function liveCommand(mode: 'plan' | 'run', args: string[], io: Out, startedAt = Date.now()): Promise<number> {
  const help = mode === 'plan' ? LIVE_PLAN_HELP : RUN_HELP;
  try {
    const opts = parse(mode, args, io.stdoutIsTTY === true);
    if (opts === 'help') {
      io.out(help);
      return 0;
    }
    return await livePass(mode, opts, io, startedAt);
  } catch (e) {
    if (e instanceof Usage || e instanceof FormatError) {
      io.err(`kube-tidy: ${e.message}\n\n${help}`);
      return 2;
    }
    if (e instanceof InputError || e instanceof KubeConfigError || e instanceof ConfigError) {
      io.err(`kube-tidy: ${e.message}\n`);
      return 2;
    }
    if (e instanceof PolicyError) {
      io.err(`kube-tidy: invalid policy:\n${e.message}\n`);
      return 2;
    }
    if (e instanceof KubeError) {
      io.err(`kube-tidy: ${e.message}\n`);
      return 1;
    }
    // No credential: the cluster could not be read, the input was fine.
    if (e instanceof CredentialPluginError) {
      io.err(`kube-tidy: could not authenticate to the cluster: ${e.message}\n`);
      return 1;
    }
    io.err(`kube-tidy: unexpected error: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}

export type LiveOptions = Exclude<ReturnType<typeof parse>, 'help'>;

/** The flags of `kube-tidy plan --kubeconfig` and `kube-tidy run`, checked; 'help' for --help. */
export function parse(mode: 'plan' | 'run', args: string[], stdoutIsTTY: boolean) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new Usage((e as Error).message);
  }
  const { values: v, positionals } = parsed;
  if (v.help) return 'help' as const;
  const problems: string[] = [];
  if (positionals.length > 0) problems.push(`unexpected argument "${positionals[0]}"`);
  // Explicit, never $KUBECONFIG or ~/.kube/config: a cleanup run against the wrong cluster is
  // the one mistake this command must not make easy.
  if (v.kubeconfig === undefined) problems.push('missing --kubeconfig FILE (the cluster is never taken from $KUBECONFIG or ~/.kube/config)');
  if (v.policy !== undefined && v['policy-configmap'] !== undefined) problems.push('pass only one of --policy and --policy-configmap');
  const configMap = v['policy-configmap'] ?? DEFAULT_POLICY_CONFIGMAP;
  if (!/^[a-z0-9-]+\/[a-z0-9.-]+$/.test(configMap)) problems.push(`--policy-configmap "${configMap}": expected NAMESPACE/NAME`);
  if (v.namespace !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(v.namespace))
    problems.push(`--namespace "${v.namespace}" is not a namespace name`);
  if (v['brakes-namespace'] !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(v['brakes-namespace']))
    problems.push(`--brakes-namespace "${v['brakes-namespace']}" is not a namespace name`);
  if (v['label-selector'] !== undefined) {
    const sel = parseSelectorString(v['label-selector']);
    if (typeof sel === 'string') problems.push(`--label-selector: ${sel}`);
  }
  const protection = protectedNamespacesOf(v['protected-namespaces'], DEFAULT_PROTECTED_NAMESPACES);
  if ('problem' in protection) problems.push(protection.problem);
  const chunk = v['chunk-size'] ?? '500';
  if (!/^\d+$/.test(chunk) || Number(chunk) < 1 || Number(chunk) > 5000) problems.push(`--chunk-size "${chunk}" is not a whole number from 1 to 5000`);
  const timeoutMs = parseGoDuration(v.timeout ?? '10m');
  if (timeoutMs === undefined || timeoutMs <= 0) problems.push(`--timeout "${v.timeout}" is not a positive duration such as 10m or 90s`);
  if (mode === 'plan' && v.yes) problems.push('--yes is for "kube-tidy run"; a plan never changes the cluster');
  const diff = liveDiffFlags(mode, v, { newPolicyConfigMap: configMap, deployedRef: DEFAULT_POLICY_CONFIGMAP }, problems);
  if (v.report && diff) problems.push('--report writes the reports of a plan or a run, not of a comparison: drop --against or --report');
  if (v.report && v['label-selector'] !== undefined)
    problems.push('--report: a report covers every pod of its namespaces (it replaces what was reported there): drop --label-selector or --report');
  let format: ReturnType<typeof chooseFormat> = 'json';
  try {
    format = chooseFormat(v.output, stdoutIsTTY);
  } catch (e) {
    problems.push((e as Error).message);
  }
  if (problems.length > 0) throw new Usage(problems.join('\n  '));
  // Only once everything else is right, so the message is the one thing left to do.
  if (mode === 'run' && !v.yes) throw new Usage('run deletes and evicts pods: add --yes to go ahead (or run "kube-tidy plan" first to see what it would do)');
  const { namespaces: protectedNamespaces, removed: unprotected } = protection as Exclude<typeof protection, { problem: string }>;
  return {
    kubeconfig: v.kubeconfig!,
    context: v.context,
    namespace: v.namespace,
    labelSelector: v['label-selector'],
    policyFile: v.policy,
    policyConfigMap: configMap,
    brakesNamespace: v['brakes-namespace'],
    allowUnsupported: v['allow-unsupported'] === true,
    protectedNamespaces,
    unprotected,
    chunkSize: Number(chunk),
    timeoutMs: timeoutMs!,
    format,
    explain: v.explain === true,
    diff,
    report: v.report === true,
  };
}

/**
 * --timeout bounds the whole command, not only the pass: the credential plugin and every
 * request stop at the deadline (each request's own timeout never outlasts what is left), and
 * the answer does not wait for anything that has not noticed.
 */
async function livePass(mode: 'plan' | 'run', o: LiveOptions, io: Out, startedAt: number): Promise<number> {
  const endsAt = startedAt + o.timeoutMs;
  const deadline = new AbortController();
  let plugins: ExecCredentials | undefined;
  let stuckOn: string | undefined;
  // --timeout is any Go duration: waited in steps past 2^31-1 ms, not fired at once.
  const timer = setLongTimeout(() => {
    stuckOn = plugins?.running();
    deadline.abort(new Error(`--timeout ${o.timeoutMs / 1000}s`));
  }, endsAt - Date.now());
  // Once the command has answered, the work left behind (being stopped) prints nothing more.
  let answered = false;
  const quiet: Out = {
    out: (s) => !answered && io.out(s),
    err: (s) => !answered && io.err(s),
    ...(io.stdoutIsTTY === undefined ? {} : { stdoutIsTTY: io.stdoutIsTTY }),
    ...(io.notifier ? { notifier: io.notifier } : {}),
    ...(io.metrics ? { metrics: io.metrics } : {}),
  };
  const seen: PassParts['seen'] = { pages: 0, rows: [] };
  let server = '';
  let clients: KubeClients | undefined;
  try {
    const fromFile = o.policyFile === undefined ? undefined : loadPolicyFile(o.policyFile, o.allowUnsupported);
    const kubeConfig = loadKubeConfig({ kubeconfig: o.kubeconfig, ...(o.context === undefined ? {} : { context: o.context }) });
    server = describeKubeConfig(kubeConfig).server;
    plugins = execCredentials(kubeConfig, deadline.signal);
    clients = kubeClients(kubeConfig, { timeoutMs: 30_000, endsAt, ...(io.metrics ? { metrics: io.metrics } : {}) });
    const work = pass(mode, o, quiet, { clients, fromFile, plugins, endsAt, seen });
    // race() handles a rejection that comes after the deadline answered.
    const result = await Promise.race([work, new Promise<'timeout'>((r) => deadline.signal.addEventListener('abort', () => r('timeout')))]);
    if (result !== 'timeout') return result;
  } catch (e) {
    // A request's own timeout is cut to what is left of --timeout (clients.ts endsAt), so at the
    // deadline it may fire a moment before the command's timer: that is the deadline too.
    if (!deadline.signal.aborted && Date.now() < endsAt - 20) throw e;
  } finally {
    timer.clear();
    clients?.close();
  }
  answered = true;
  if (o.format === 'table' && seen.rows.length > 0) io.out(resultTable(seen.rows));
  const why = stuckOn
    ? `waiting for the credential plugin "${stuckOn}", which was stopped`
    : seen.pages === 0
      ? `nothing listed yet by the API server at ${server}`
      : '';
  io.err(`kube-tidy: stopped at --timeout ${o.timeoutMs / 1000}s before the pass was complete${why ? ` (${why})` : ''}\n`);
  return 1;
}

interface PassParts {
  clients: KubeClients;
  fromFile: LoadedPolicy | undefined;
  plugins: ExecCredentials;
  endsAt: number;
  /** How far the pass got, for the answer at the deadline. */
  seen: { pages: number; rows: ActResult[] };
}

async function pass(mode: 'plan' | 'run', o: LiveOptions, io: Out, { clients, fromFile, plugins, endsAt, seen }: PassParts): Promise<number> {
  const dryRun = mode === 'plan';
  try {
    // Before any request: a plugin that fails is named as such, not as a failed request.
    await plugins.ready();
    const loaded = fromFile ?? (await policyFromConfigMap(clients.core, o.policyConfigMap, o.allowUnsupported));
    for (const w of loaded.warnings) io.err(`warning: ${w}\n`);
    const unprotected = unprotectedWarning(o.unprotected);
    if (unprotected) io.err(unprotected);
    const { policy } = loaded;
    if (o.diff) return await againstPass(o.diff, o, policy, { clients, fromFile, endsAt, seen }, io);
    const log = createLogger({ destination: { write: io.err }, level: 'warn' });
    const ledgerNamespace = await ledgerOf(clients, policy, o, fromFile === undefined, io);
    const series = dryRun ? undefined : objectEventSeries(clients, o.timeoutMs, log);
    // The flags as data: a plan's writer sends dryRun=All whatever runPass asks.
    const handle = cliHandle({
      clients,
      policy,
      dryRun,
      chunkSize: o.chunkSize,
      protectedNamespaces: o.protectedNamespaces,
      ledgerNamespace,
      // What is left of --timeout: the plugin and the policy read came out of it.
      budgetMs: Math.max(1, endsAt - Date.now()),
      log,
      notifier: io.notifier ?? Notifier.off(),
      metrics: io.metrics ?? MetricsRecorder.off(),
      ...(series ? { writerOptions: { series } } : {}),
    });
    const rows = seen.rows;
    let lastProgress = 0;
    const reports = o.report
      ? new PassReports({ policy, mode, protectedNamespaces: o.protectedNamespaces, ...(o.namespace ? { namespaces: [o.namespace] } : {}) })
      : undefined;
    const summary = await runPass(handle, {
      policy,
      ...(o.namespace ? { namespaces: [o.namespace] } : {}),
      ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
      dryRun,
      budgetMs: handle.settings.budgetMs,
      // Results are streamed (onResult); kept pods are held only when they will be printed or reported.
      // With --report the kept pods are streamed to the reports (an observer of the pass), not held.
      maxResults: o.explain ? Number.MAX_SAFE_INTEGER : 0,
      onPage: (p) => {
        seen.pages = p.pages;
        if (p.pages < 2 || Date.now() - lastProgress < 1000) return;
        lastProgress = Date.now();
        io.err(`listing: ${p.podsSeen} pods in ${p.pages} pages${p.remainingItemCount === undefined ? '' : `, about ${p.remainingItemCount} to go`}\n`);
      },
      ...(reports ? { observers: [reports] } : {}),
      onResult: (r) => {
        if (o.format === 'json') io.out(jsonLine(row(r)));
        else rows.push(r);
      },
    });
    if (o.format === 'table') {
      if (rows.length > 0) io.out(resultTable(rows));
      else io.out('nothing to do: the policy selects no pod\n');
    }
    if (o.explain) for (const k of summary.keptPods) io.err(`kept ${k.namespace}/${k.name} (${k.strategy}): ${k.reason}\n`);
    io.err(podsSummary(mode, summary));
    // After the pods, through the same writer and brakes; not begun once --timeout stopped the pods.
    const own = ownNamespaceOf(o, hasBrakes(brakeSetOf(policy)) ? ledgerNamespace : undefined, fromFile === undefined);
    const objects = summary.stoppedBy === 'time-budget' ? undefined : await liveObjects(objectsOptions(o, handle, clients, policy, dryRun, own), io);
    // The objects' counted Events, written before the command answers (within what is left of --timeout).
    await series?.drain(Math.max(1, endsAt - Date.now()));
    if (reports && !(await writeReports(reports, clients, summary, io))) return 1;
    return exitOf(summary, objects, o, dryRun, io);
  } finally {
    clients.close();
  }
}

/** The object pass's options: the policy's objects and ttl rules, the command's namespace, selector, output and --report, with the pods' handle and clients. */
const objectsOptions = (
  o: LiveOptions,
  handle: LiveObjects['handle'],
  reader: KubeClients,
  policy: LoadedPolicy['policy'],
  dryRun: boolean,
  own: LiveObjects['own'],
): LiveObjects => ({
  handle,
  reader,
  rules: policy.objects ?? [],
  ttlRules: policy.ttl ?? [],
  ...(own ? { own } : {}),
  namespace: o.namespace,
  labelSelector: o.labelSelector,
  dryRun,
  format: o.format,
  report: o.report,
  protectedNamespaces: o.protectedNamespaces,
});

/** `plan --against`: the policy in force read (a file or a ConfigMap), then both compared (diff-live.ts). */
async function againstPass(
  diff: NonNullable<LiveOptions['diff']>,
  o: LiveOptions,
  policy: LoadedPolicy['policy'],
  { clients, fromFile, endsAt, seen }: Pick<PassParts, 'clients' | 'fromFile' | 'endsAt' | 'seen'>,
  io: Out,
): Promise<number> {
  const { against, name } = diff;
  const old =
    'file' in against
      ? loadPolicyFile(against.file, o.allowUnsupported)
      : await policyFromConfigMap(clients.core, against.configMap, o.allowUnsupported, `--against ${name}`);
  for (const w of old.warnings) io.err(`warning: --against ${name}: ${w}\n`);
  // No ledger is charged by a comparison: kube-tidy's namespace as a plan without brakes finds it.
  const own = ownNamespaceOf(o, undefined, fromFile === undefined);
  const rest = { namespace: o.namespace, labelSelector: o.labelSelector, chunkSize: o.chunkSize, protectedNamespaces: o.protectedNamespaces, own };
  const budgetMs = Math.max(1, endsAt - Date.now());
  const onPage = (pages: number) => void (seen.pages = pages);
  return diffPass({ clients, policy, against: { policy: old.policy, name }, ...rest, gate: diff.gate, format: o.format, budgetMs, onPage }, io);
}

type PassSummary = Awaited<ReturnType<typeof runPass>>;

/** The pods' summary line (stderr): counts by outcome, a plan's removals as "would be". */
function podsSummary(mode: 'plan' | 'run', summary: PassSummary): string {
  const dryRun = mode === 'plan';
  const counts = Object.entries(summary.outcomes).map(([k, n]) => `${n} ${dryRun && (k === 'deleted' || k === 'evicted') ? `would be ${k}` : k}`);
  return (
    `${mode}${dryRun ? ' (dry run: nothing was changed)' : ''}: ${summary.selected} selected, ${summary.kept} kept, of ${summary.podsSeen} pods listed in ${summary.pages} pages` +
    `${summary.fieldSelector ? ` (${summary.fieldSelector})` : ''}, ${(summary.durationMs / 1000).toFixed(2)} s${counts.length ? `: ${counts.join(', ')}` : ''}\n`
  );
}

/** --report: the pass's OpenReports written, said on stderr; false when one could not be. */
async function writeReports(reports: PassReports, clients: KubeClients, summary: PassSummary, io: Out): Promise<boolean> {
  const reported = await reports.write(clients.custom, summary, Date.now());
  io.err(`reports: ${reported.written} written, ${reported.deleted} deleted (openreports.io Reports labelled app.kubernetes.io/managed-by=kube-tidy)\n`);
  for (const e of reported.errors ?? []) io.err(`kube-tidy: report: ${e}\n`);
  return reported.failures.transient + reported.failures.refused === 0;
}

/** 1 when the pass stopped at --timeout or a selected pod or object failed or was refused (said on stderr), else 0. */
function exitOf(summary: PassSummary, objects: ObjectsPassSummary | undefined, o: LiveOptions, dryRun: boolean, io: Out): number {
  if (summary.stoppedBy === 'time-budget') {
    io.err(`kube-tidy: stopped at --timeout ${o.timeoutMs / 1000}s before the pass was complete\n`);
    return 1;
  }
  const failed = { pods: summary.failures.transient + summary.failures.refused, objects: objects ? objects.failures.transient + objects.failures.refused : 0 };
  for (const [what, n] of Object.entries(failed))
    if (n > 0) io.err(`kube-tidy: ${n} of the selected ${what} could not be ${dryRun ? 'planned' : 'handled'} (see their results)\n`);
  return failed.pods + failed.objects > 0 ? 1 : 0;
}

/**
 * The deployed kube-tidy's namespace, which a ttl rule never deletes (the deployment's own
 * guard reads BRAKES_NAMESPACE, where its ledger is): the ledger this command charges, found as
 * the deployed one (ledger.ts); without brakes to charge, --brakes-namespace, else the namespace
 * of the deployed policy's ConfigMap, else BRAKES_NAMESPACE's default (kube-tidy).
 */
export function ownNamespaceOf(o: Pick<LiveOptions, 'brakesNamespace' | 'policyConfigMap'>, ledger: string | undefined, deployedPolicy: boolean) {
  if (ledger !== undefined) return { namespace: ledger, from: o.brakesNamespace === undefined ? 'where its brakes ledger is' : '--brakes-namespace' };
  if (o.brakesNamespace !== undefined) return { namespace: o.brakesNamespace, from: '--brakes-namespace' };
  if (deployedPolicy) return { namespace: o.policyConfigMap.split('/')[0]!, from: 'beside its policy ConfigMap' };
  return { namespace: DEFAULT_LEDGER_NAMESPACE, from: "BRAKES_NAMESPACE's default" };
}

/**
 * The Event series of a run's object removals (kube/event-series.ts): the first of each
 * namespace, kind and rule gets its own Event, the rest one that counts them, written at the
 * end of the run (its window is the whole command), as the functions bound theirs. The pods'
 * removals keep an Event each (cliHandle's eventsPerPass: a person's run).
 */
function objectEventSeries(clients: KubeClients, timeoutMs: number, log: Logger): PodEventSeries {
  return new PodEventSeries({ events: clients.events, now: Date.now, instance: hostname(), log, windowMs: timeoutMs, intervalMs: timeoutMs, named: 5 });
}

/** The brakes' ledger the pass charges (ledger.ts), said on stderr; none to find for a policy without brakes. */
async function ledgerOf(clients: KubeClients, policy: LoadedPolicy['policy'], o: LiveOptions, deployedPolicy: boolean, io: Out): Promise<string> {
  if (!hasBrakes(brakeSetOf(policy))) return DEFAULT_LEDGER_NAMESPACE;
  const policyNamespace = deployedPolicy ? o.policyConfigMap.split('/')[0] : undefined;
  const ledger = await chooseLedger(clients.core, { flag: o.brakesNamespace, policyNamespace });
  io.err(`brakes: charging the ledger ${ledger.namespace}/${BRAKES_NAME} (${ledger.why})\n`);
  return ledger.namespace;
}

const resultTable = (rows: ActResult[]) =>
  table(
    ['POD', 'STRATEGY', 'ACTION', 'RESULT', 'REASON'],
    rows.map((r) => [`${r.namespace}/${r.name}`, r.strategy, r.action, resultText(r), r.reason]),
  );

/** One JSON line: the offline plan's fields, then what the API server answered. */
function row(r: ActResult): Record<string, unknown> {
  return {
    namespace: r.namespace,
    name: r.name,
    uid: r.uid,
    strategy: r.strategy,
    action: r.action,
    reason: r.reason,
    outcome: r.outcome,
    dryRun: r.dryRun,
    ...(r.message ? { message: r.message } : {}),
  };
}

async function policyFromConfigMap(
  core: KubeClients['core'],
  ref: string,
  allowUnsupported: boolean,
  flag = `--policy-configmap ${ref}`,
): Promise<LoadedPolicy> {
  const [namespace, name] = ref.split('/') as [string, string];
  let cm;
  try {
    cm = await core.readNamespacedConfigMap({ namespace, name });
  } catch (e) {
    if (classifyKubeError(e).kind === 'not-found') {
      const hint = flag.startsWith('--policy-configmap') ? 'pass --policy FILE, or name the deployed one' : `${ref}: nothing deployed to compare with`;
      throw new InputError(flag, [{ path: '', message: `no such ConfigMap in the cluster: ${hint}` }]);
    }
    throw toKubeError(e, `read ConfigMap ${ref}`);
  }
  const text = cm.data?.['policy.yaml'];
  if (text === undefined) throw new InputError(`ConfigMap ${ref}`, [{ path: 'data', message: 'has no key policy.yaml' }]);
  return loadPolicyFrom(`ConfigMap ${ref} data.policy.yaml`, text, allowUnsupported);
}
