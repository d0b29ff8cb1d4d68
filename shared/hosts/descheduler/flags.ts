// The descheduler's command line (sigs.k8s.io/descheduler v0.36.0, cmd/descheduler/app/options,
// component-base's leader election, secure serving and logging flags), read the way its flag
// library (spf13/pflag) reads it: `--name=value` and `--name value`; a boolean takes no next
// argument (`--dry-run`, `--dry-run=false`); `-v 4`, `-v=4` and `-v4` for `--v`. Defaults are the
// descheduler's, so a Deployment, a CronJob or the descheduler's Helm chart that runs
// `/bin/descheduler` runs kube-tidy by changing only the image. Pure: no I/O, no clock.
// Where kube-tidy is stricter (docs/migrating-from-descheduler.md): a stray argument is refused
// (`--dry-run false` would run for real under pflag, "false" being a positional it ignores);
// flags for things kube-tidy does not do (tracing, feature gates, TLS tuning) are accepted and
// named in one warning rather than failing a manifest that sets them.
import { dns1123LabelProblem, dns1123SubdomainProblem } from '../../model/names.js';
import { parseGoDuration } from '../../policy/duration.js';

export interface LeaderElectionFlags {
  leaderElect: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resourceName: string;
  resourceNamespace: string;
}

export interface ServingFlags {
  bindAddress: string;
  /** 0: no secure serving (as the API server's options read it). */
  securePort: number;
  certDir: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
}

export interface DeschedulerFlags {
  policyConfigFile: string;
  /** 0: one cycle, then exit. */
  deschedulingIntervalMs: number;
  dryRun: boolean;
  /** --kubeconfig / --client-connection-kubeconfig; "" for $KUBECONFIG or the pod's service account. */
  kubeconfig: string;
  /** 0: client-go's defaults (5 and 10), as the descheduler leaves them. */
  qps: number;
  burst: number;
  leaderElection: LeaderElectionFlags;
  serving: ServingFlags;
  disableMetrics: boolean;
  /** -v: klog's verbosity; 4 and above logs at debug. */
  verbosity: number;
  loggingFormat: 'text' | 'json';
  /** kube-tidy's own --allow-unsupported: a plugin it does not implement is skipped with a warning instead of refusing the policy. */
  allowUnsupported: boolean;
  /** Flags set that kube-tidy accepts and does not act on, as given. */
  ignored: string[];
  help: boolean;
}

export class DeschedulerFlagError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n  '));
  }
}

type Kind = 'string' | 'bool' | 'duration' | 'int' | 'float' | 'ignored' | 'ignored-bool';

/** Every flag the descheduler v0.36.0 defines, by its long name. */
const FLAGS: Record<string, Kind> = {
  'policy-config-file': 'string',
  'descheduling-interval': 'duration',
  'dry-run': 'bool',
  kubeconfig: 'string',
  'client-connection-kubeconfig': 'string',
  'client-connection-qps': 'float',
  'client-connection-burst': 'int',
  'disable-metrics': 'bool',
  'leader-elect': 'bool',
  'leader-elect-lease-duration': 'duration',
  'leader-elect-renew-deadline': 'duration',
  'leader-elect-retry-period': 'duration',
  'leader-elect-resource-lock': 'string',
  'leader-elect-resource-name': 'string',
  'leader-elect-resource-namespace': 'string',
  'bind-address': 'string',
  'secure-port': 'int',
  'cert-dir': 'string',
  'tls-cert-file': 'string',
  'tls-private-key-file': 'string',
  v: 'int',
  'logging-format': 'string',
  // kube-tidy's own: run the strategies it implements, each plugin it does not named in a warning.
  'allow-unsupported': 'bool',
  // Accepted, not acted on: said once at start.
  'otel-collector-endpoint': 'ignored',
  'otel-transport-ca-cert': 'ignored',
  'otel-service-name': 'ignored',
  'otel-trace-namespace': 'ignored',
  'otel-sample-rate': 'ignored',
  'otel-fallback-no-op-on-error': 'ignored-bool',
  'enable-http2': 'ignored-bool',
  'feature-gates': 'ignored',
  'tls-cipher-suites': 'ignored',
  'tls-min-version': 'ignored',
  'tls-sni-cert-key': 'ignored',
  'http2-max-streams-per-connection': 'ignored',
  'permit-port-sharing': 'ignored-bool',
  'permit-address-sharing': 'ignored-bool',
  vmodule: 'ignored',
  'log-flush-frequency': 'ignored',
  'log-json-info-buffer-size': 'ignored',
  'log-json-split-stream': 'ignored-bool',
  'log-text-info-buffer-size': 'ignored',
  'log-text-split-stream': 'ignored-bool',
};

const BOOLS = new Set<Kind>(['bool', 'ignored-bool']);

/** The flags as given, in order: name -> last value (pflag: a later flag wins). */
function tokens(argv: readonly string[], problems: string[]): { values: Map<string, string>; help: boolean } {
  const values = new Map<string, string>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    // -v, -v=4, -v4: the one shorthand (component-base's logging flags).
    const short = /^-v(=?)(.*)$/.exec(arg);
    const long = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    let name: string;
    let value: string | undefined;
    if (short && !arg.startsWith('--')) [name, value] = ['v', short[2] === '' && short[1] === '' ? undefined : short[2]];
    else if (long) [name, value] = [long[1]!, long[2]];
    else {
      problems.push(`unexpected argument "${arg}" (the descheduler's flags take "--name value" or "--name=value")`);
      continue;
    }
    const kind = FLAGS[name];
    if (kind === undefined) {
      problems.push(`unknown flag: --${name}`);
      continue;
    }
    if (value === undefined) {
      if (BOOLS.has(kind)) value = 'true';
      else if (i + 1 < argv.length) value = argv[++i]!;
      else {
        problems.push(`flag needs an argument: --${name}`);
        continue;
      }
    }
    values.set(name, value);
  }
  return { values, help };
}

/** Reads one value by its kind; a problem naming the flag when it does not read. */
function reader(values: Map<string, string>, problems: string[]) {
  const bad = (name: string, v: string, what: string) => void problems.push(`invalid argument "${v}" for "--${name}" flag: ${what}`);
  return {
    str: (name: string, d: string) => values.get(name) ?? d,
    bool(name: string, d: boolean): boolean {
      const v = values.get(name);
      if (v === undefined) return d;
      // strconv.ParseBool, as pflag reads a boolean.
      if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
      if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
      bad(name, v, 'not a boolean');
      return d;
    },
    duration(name: string, dMs: number): number {
      const v = values.get(name);
      if (v === undefined) return dMs;
      const ms = parseGoDuration(v);
      if (ms === undefined || ms < 0) bad(name, v, 'not a duration such as 100m, 1h30m or 0');
      return ms ?? dMs;
    },
    num(name: string, d: number, int: boolean): number {
      const v = values.get(name);
      if (v === undefined) return d;
      const n = Number(v);
      if (v.trim() === '' || !Number.isFinite(n) || (int && !Number.isInteger(n))) bad(name, v, int ? 'not a whole number' : 'not a number');
      return Number.isFinite(n) ? n : d;
    },
  };
}

/** The descheduler's flags, checked as it checks them; throws DeschedulerFlagError naming each problem. */
export function parseDeschedulerFlags(argv: readonly string[]): DeschedulerFlags {
  const problems: string[] = [];
  const { values, help } = tokens(argv, problems);
  const r = reader(values, problems);
  const flags: DeschedulerFlags = {
    policyConfigFile: r.str('policy-config-file', ''),
    deschedulingIntervalMs: r.duration('descheduling-interval', 0),
    dryRun: r.bool('dry-run', false),
    kubeconfig: values.get('client-connection-kubeconfig') ?? r.str('kubeconfig', ''),
    qps: r.num('client-connection-qps', 0, false),
    burst: r.num('client-connection-burst', 0, true),
    leaderElection: {
      leaderElect: r.bool('leader-elect', false),
      leaseDurationMs: r.duration('leader-elect-lease-duration', 137_000),
      renewDeadlineMs: r.duration('leader-elect-renew-deadline', 107_000),
      retryPeriodMs: r.duration('leader-elect-retry-period', 26_000),
      resourceName: r.str('leader-elect-resource-name', 'descheduler'),
      resourceNamespace: r.str('leader-elect-resource-namespace', 'kube-system'),
    },
    serving: {
      bindAddress: r.str('bind-address', '0.0.0.0'),
      securePort: r.num('secure-port', 10258, true),
      certDir: r.str('cert-dir', ''),
      tlsCertFile: r.str('tls-cert-file', ''),
      tlsPrivateKeyFile: r.str('tls-private-key-file', ''),
    },
    disableMetrics: r.bool('disable-metrics', false),
    verbosity: r.num('v', 0, true),
    loggingFormat: r.str('logging-format', 'text') as 'text' | 'json',
    allowUnsupported: r.bool('allow-unsupported', false),
    ignored: [...values.keys()].filter((k) => FLAGS[k] === 'ignored' || FLAGS[k] === 'ignored-bool').map((k) => `--${k}`),
    help,
  };
  if (!help) problems.push(...checked(flags, values.get('leader-elect-resource-lock')));
  if (problems.length > 0) throw new DeschedulerFlagError(problems);
  return flags;
}

/** What the descheduler refuses once its flags are read (options' Validate, descheduler.Run, client-go's leader election). */
function checked(f: DeschedulerFlags, lock: string | undefined): string[] {
  const problems: string[] = [];
  if (f.policyConfigFile === '') problems.push('--policy-config-file: no policy: name the DeschedulerPolicy file');
  if (!['text', 'json'].includes(f.loggingFormat)) problems.push(`--logging-format "${f.loggingFormat}": text or json`);
  if (f.serving.securePort < 0 || f.serving.securePort > 65535) problems.push(`--secure-port ${f.serving.securePort}: 0 to 65535 (0: not served)`);
  if ((f.serving.tlsCertFile === '') !== (f.serving.tlsPrivateKeyFile === '')) problems.push('--tls-cert-file and --tls-private-key-file go together');
  if (f.qps < 0 || f.burst < 0) problems.push('--client-connection-qps and --client-connection-burst cannot be negative');
  const le = f.leaderElection;
  if (!le.leaderElect) return problems;
  // descheduler.Run: an election makes sense only for a process that keeps running.
  if (f.deschedulingIntervalMs === 0) problems.push('--leader-elect: leaderElection must be used with deschedulingInterval (set --descheduling-interval)');
  if (lock !== undefined && lock !== 'leases') problems.push(`--leader-elect-resource-lock "${lock}": only leases (as client-go since 1.24)`);
  // Both go into the Lease's URL: names as the API server validates a Lease's (a DNS-1123
  // subdomain) and a namespace (a label), so `../x` is refused here rather than by every request.
  if (le.resourceName === '') problems.push('--leader-elect-resource-name: name may not be empty');
  else {
    const bad = dns1123SubdomainProblem(le.resourceName);
    if (bad) problems.push(`--leader-elect-resource-name "${le.resourceName}": not a Lease name: ${bad}`);
  }
  const badNs = dns1123LabelProblem(le.resourceNamespace);
  if (badNs) problems.push(`--leader-elect-resource-namespace "${le.resourceNamespace}": not a namespace name: ${badNs}`);
  // client-go's leaderelection.NewLeaderElector checks.
  if (!(le.leaseDurationMs > le.renewDeadlineMs)) problems.push('--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline');
  if (!(le.renewDeadlineMs > 1.2 * le.retryPeriodMs)) problems.push('--leader-elect-renew-deadline must be greater than 1.2 x --leader-elect-retry-period');
  if (!(le.retryPeriodMs > 0)) problems.push('--leader-elect-retry-period must be greater than zero');
  return problems;
}
