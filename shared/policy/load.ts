import { parseDocument } from 'yaml';
import { DefaultEvictorArgsSchema } from '../evictor/schema.js';
import { isStrategyName, STRATEGIES, STRATEGY_NAMES, type StrategyName } from '../strategies/registry.js';
import { issuesFromZod, PolicyError, type PolicyIssue } from './errors.js';
import type { LoadedPolicy, Profile, StrategyConfig } from './policy.js';
import { KubeTidySectionSchema, REMOVAL_KINDS, type BrakesPolicy } from './brakes-schema.js';
import type { TtlRule } from './ttl-schema.js';
import { nullsAsUnset } from './nulls.js';
import { IGNORED_TOP_LEVEL, PolicyEnvelopeSchema, ProfileSchema, type ProfileEnvelope } from './schema.js';

export interface LoadOptions {
  /** Turn "unsupported plugin" errors into warnings and run the rest. */
  allowUnsupported?: boolean;
}

/**
 * The most a policy may be, in UTF-8 bytes: a ConfigMap's limit (1 MiB), which no real policy
 * nears. A file is read no further (config/bounded-read.ts), a ConfigMap key or a body no larger
 * is parsed, so a policy from anywhere costs at most this much to refuse.
 */
export const MAX_POLICY_BYTES = 1 << 20;

const SUPPORTED = [...STRATEGY_NAMES, 'DefaultEvictor'].join(', ');

/** Parses YAML or JSON text (JSON is YAML), then validates. Throws PolicyError. */
export function loadPolicyText(text: string, options: LoadOptions = {}): LoadedPolicy {
  // UTF-8 is never shorter than the string's length: only a text near the cap is encoded to measure it.
  if (text.length > MAX_POLICY_BYTES || (text.length > MAX_POLICY_BYTES / 4 && new TextEncoder().encode(text).length > MAX_POLICY_BYTES))
    throw new PolicyError([{ path: '', message: `larger than ${MAX_POLICY_BYTES / (1 << 20)} MiB (a ConfigMap's limit): not read` }]);
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new PolicyError(doc.errors.map((e) => ({ path: '', message: `not valid YAML or JSON: ${e.message.split('\n')[0]}` })));
  }
  let value: unknown;
  try {
    // yaml refuses documents whose aliases expand past maxAliasCount ("billion laughs").
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new PolicyError([{ path: '', message: `not usable YAML: ${(e as Error).message.split('\n')[0]}` }]);
  }
  return loadPolicy(value, options);
}

/** Validates a parsed policy and fills its defaults, reporting every problem at once. */
export function loadPolicy(given: unknown, options: LoadOptions = {}): LoadedPolicy {
  const raw = nullsAsUnset(given);
  const envelope = PolicyEnvelopeSchema.safeParse(raw);
  if (!envelope.success) {
    // Report envelope problems and, where profiles are readable, their plugins' too.
    const issues = issuesFromZod(envelope.error, '', raw);
    const profiles = (raw as { profiles?: unknown })?.profiles;
    if (Array.isArray(profiles)) {
      profiles.forEach((p, i) => {
        const parsed = ProfileSchema.safeParse(p);
        if (parsed.success) issues.push(...loadProfile(parsed.data, i, options, []).issues);
      });
    }
    const section = KubeTidySectionSchema.safeParse((raw as { kubeTidy?: unknown })?.kubeTidy ?? {});
    if (!section.success) issues.push(...issuesFromZod(section.error, 'kubeTidy', (raw as { kubeTidy?: unknown }).kubeTidy));
    throw new PolicyError(dedupe(issues));
  }
  const e = envelope.data;
  const issues: PolicyIssue[] = [];
  const warnings: string[] = IGNORED_TOP_LEVEL.filter((k) => e[k] !== undefined).map(
    (k) => `${k}: accepted for compatibility and ignored (kube-tidy does not use it)`,
  );
  const names = new Set<string>();
  const profiles: Profile[] = [];
  e.profiles.forEach((p, i) => {
    if (names.has(p.name)) issues.push({ path: `profiles[${i}].name`, message: `duplicate profile name "${p.name}"` });
    names.add(p.name);
    const result = loadProfile(p, i, options, warnings);
    issues.push(...result.issues);
    if (result.profile) profiles.push(result.profile);
  });
  const section = KubeTidySectionSchema.safeParse(e.kubeTidy ?? {});
  if (!section.success) issues.push(...issuesFromZod(section.error, 'kubeTidy', e.kubeTidy));
  // Names too, whatever else is wrong in the section: every problem at once.
  issues.push(...retentionNames((e.kubeTidy as { retention?: unknown } | undefined)?.retention, e.profiles));
  // A policy does something: pod profiles, or only rules beyond pods (docs/objects.md).
  const { objects: objectRules, ttl: ttlRules } = (e.kubeTidy ?? {}) as { objects?: unknown; ttl?: unknown };
  const some = (x: unknown) => Array.isArray(x) && x.length > 0;
  if (e.profiles.length === 0 && !some(objectRules) && !some(ttlRules))
    issues.push({ path: 'profiles', message: 'at least one profile is required (or kubeTidy.objects or kubeTidy.ttl rules only)' });
  if (section.success) issues.push(...sharedRuleNames(section.data.objects, section.data.ttl), ...rateKinds(section.data));
  if (issues.length > 0 || !section.success) throw new PolicyError(issues);
  return {
    policy: {
      nodeSelector: e.nodeSelector,
      limits: { perNode: e.maxNoOfPodsToEvictPerNode, perNamespace: e.maxNoOfPodsToEvictPerNamespace, total: e.maxNoOfPodsToEvictTotal },
      brakes: section.data.brakes,
      ...(section.data.retention.length ? { retention: section.data.retention } : {}),
      ...(section.data.objects.length ? { objects: section.data.objects } : {}),
      ...(section.data.ttl.length ? { ttl: section.data.ttl } : {}),
      gracePeriodSeconds: e.gracePeriodSeconds,
      profiles,
    },
    warnings,
  };
}

function loadProfile(p: ProfileEnvelope, i: number, options: LoadOptions, warnings: string[]): { profile?: Profile; issues: PolicyIssue[] } {
  const at = `profiles[${i}]`;
  const issues: PolicyIssue[] = [];
  const unsupported = (path: string, name: string) => {
    const message = `plugin "${name}" is not supported; supported plugins: ${SUPPORTED}`;
    if (options.allowUnsupported) warnings.push(`${path}: ${message} (skipped)`);
    else issues.push({ path, message });
  };

  // Arguments, validated for every configured plugin kube-tidy knows, enabled or not.
  const argsByName = new Map<string, unknown>();
  const configured = new Set<string>();
  p.pluginConfig.forEach((pc, j) => {
    const path = `${at}.pluginConfig[${j}]`;
    if (configured.has(pc.name)) {
      issues.push({ path: `${path}.name`, message: `duplicate pluginConfig for "${pc.name}"` });
      return;
    }
    configured.add(pc.name);
    const schema = pc.name === 'DefaultEvictor' ? DefaultEvictorArgsSchema : isStrategyName(pc.name) ? STRATEGIES[pc.name].schema : undefined;
    if (!schema) {
      unsupported(`${path}.name`, pc.name);
      return;
    }
    const args = withoutTypeMeta(pc.args ?? {}, pc.name, `${path}.args`, issues);
    const parsed = schema.safeParse(args);
    if (parsed.success) argsByName.set(pc.name, parsed.data);
    else issues.push(...issuesFromZod(parsed.error, `${path}.args`, args));
  });

  const plugins = p.plugins;
  const strategies: StrategyConfig[] = [];
  const seen = new Set<string>();
  for (const point of ['deschedule', 'balance'] as const) {
    (plugins[point]?.enabled ?? []).forEach((name, j) => {
      const path = `${at}.plugins.${point}.enabled[${j}]`;
      if (!isStrategyName(name) || STRATEGIES[name].extensionPoint !== point) return unsupported(path, name);
      if (seen.has(name)) return issues.push({ path, message: `plugin "${name}" is enabled twice` });
      seen.add(name);
      if (configured.has(name) && !argsByName.has(name)) return; // its arguments were reported above
      if (!argsByName.has(name)) {
        // No pluginConfig: the strategy runs with its defaults, which must be valid on their own.
        const parsed = STRATEGIES[name].schema.safeParse({});
        if (!parsed.success) {
          const where = `${at}.plugins.${point}.enabled[${j}]`;
          issues.push(
            ...parsed.error.issues.map((x) => ({
              path: where,
              message: `"${name}" has no pluginConfig and its defaults are not enough: ${x.path.length ? `${x.path.join('.')}: ` : ''}${x.message}`,
            })),
          );
          return;
        }
        argsByName.set(name, parsed.data);
      }
      strategies.push({ name: name as StrategyName, args: argsByName.get(name) });
    });
  }
  for (const point of ['filter', 'preevictionfilter', 'preEvictionFilter'] as const) {
    (plugins[point]?.enabled ?? []).forEach((name, j) => {
      if (name !== 'DefaultEvictor') unsupported(`${at}.plugins.${point}.enabled[${j}]`, name);
    });
  }
  for (const point of ['presort', 'sort'] as const) {
    (plugins[point]?.enabled ?? []).forEach((name, j) => unsupported(`${at}.plugins.${point}.enabled[${j}]`, name));
  }
  for (const name of argsByName.keys()) {
    if (name !== 'DefaultEvictor' && !seen.has(name)) warnings.push(`${at}: "${name}" is configured but not enabled; it will not run`);
  }
  if (strategies.length === 0 && issues.length === 0) warnings.push(`${at}: no supported strategy is enabled; it selects nothing`);

  const evictor = argsByName.get('DefaultEvictor') ?? DefaultEvictorArgsSchema.parse({});
  if (issues.length > 0) return { issues };
  return { profile: { name: p.name, evictor: evictor as Profile['evictor'], strategies }, issues };
}

/**
 * The descheduler's Helm chart writes `apiVersion: descheduler/v1alpha2, kind: <Plugin>Args`
 * inside args; accept that type header when it names the right kind, and drop it.
 */
function withoutTypeMeta(args: unknown, plugin: string, path: string, issues: PolicyIssue[]): unknown {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const { apiVersion, kind, ...rest } = args as Record<string, unknown>;
  if (apiVersion !== undefined && apiVersion !== 'descheduler/v1alpha2') {
    issues.push({ path: `${path}.apiVersion`, message: `got ${JSON.stringify(apiVersion)}, expected "descheduler/v1alpha2"` });
  }
  if (kind !== undefined && kind !== `${plugin}Args`) {
    issues.push({ path: `${path}.kind`, message: `got ${JSON.stringify(kind)}, expected "${plugin}Args"` });
  }
  return rest;
}

/** A retention rule naming a strategy no profile enables, or a profile that does not exist, is a typo that would keep nothing: refused. */
function retentionNames(rules: unknown, profiles: readonly ProfileEnvelope[]): PolicyIssue[] {
  const issues: PolicyIssue[] = [];
  if (!Array.isArray(rules)) return issues; // its shape is the schema's to report
  const profileNames = new Set(profiles.map((p) => p.name));
  const enabled = new Set(profiles.flatMap((p) => [...(p.plugins.deschedule?.enabled ?? []), ...(p.plugins.balance?.enabled ?? [])]));
  const check = (names: unknown, known: ReadonlySet<string>, path: string, expected: string) => {
    if (!Array.isArray(names)) return;
    names.forEach((name, j) => {
      if (typeof name === 'string' && name !== '' && !known.has(name))
        issues.push({ path: `${path}[${j}]`, message: `got ${JSON.stringify(name)}, expected ${expected}` });
    });
  };
  rules.forEach((r: unknown, i) => {
    if (r === null || typeof r !== 'object') return;
    const { strategies, profiles: named } = r as { strategies?: unknown; profiles?: unknown };
    check(strategies, enabled, `kubeTidy.retention[${i}].strategies`, 'a strategy a profile enables');
    check(named, profileNames, `kubeTidy.retention[${i}].profiles`, 'the name of a profile');
  });
  return issues;
}

function dedupe(issues: PolicyIssue[]): PolicyIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.path}\u0000${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A ttl rule named as an objects rule: both name the same reports and metrics, so each name is used once. */
function sharedRuleNames(objects: readonly { name: string }[], ttl: readonly { name: string }[]): PolicyIssue[] {
  const names = new Set(objects.map((r) => r.name));
  return ttl.flatMap((r, i) => (names.has(r.name) ? [{ path: `kubeTidy.ttl[${i}].name`, message: `"${r.name}" already names a kubeTidy.objects rule` }] : []));
}

/** A rate's kind that nothing removes is a typo that would hold nothing: pods, the objects rules' kinds, or a kind a ttl rule names. */
function rateKinds(section: { brakes: BrakesPolicy; ttl: readonly TtlRule[] }): PolicyIssue[] {
  const removable = new Set<string>([...REMOVAL_KINDS, ...section.ttl.flatMap((r) => r.kinds.map((k) => k.kind))]);
  return section.brakes.rates.flatMap((r, i) =>
    r.kinds.flatMap((k, j) =>
      removable.has(k) ? [] : [{ path: `kubeTidy.brakes.rates[${i}].kinds[${j}]`, message: `no rule removes ${k}: one of ${[...removable].join(', ')}` }],
    ),
  );
}
