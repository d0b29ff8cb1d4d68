import { DEFAULT_BRAKES, type BrakesPolicy } from './brakes-schema.js';
import { conditionsOf } from './objects-schema.js';
import type { Policy } from './policy.js';

/**
 * The policy back in DeschedulerPolicy form with every default written out: what
 * `kube-tidy policy check` prints, readable by both kube-tidy and (extensions aside) the
 * descheduler.
 */
export function toDeschedulerPolicy(policy: Policy): Record<string, unknown> {
  const out: Record<string, unknown> = { apiVersion: 'descheduler/v1alpha2', kind: 'DeschedulerPolicy' };
  if (policy.nodeSelector !== undefined) out.nodeSelector = policy.nodeSelector;
  if (policy.limits.perNode !== undefined) out.maxNoOfPodsToEvictPerNode = policy.limits.perNode;
  if (policy.limits.perNamespace !== undefined) out.maxNoOfPodsToEvictPerNamespace = policy.limits.perNamespace;
  if (policy.limits.total !== undefined) out.maxNoOfPodsToEvictTotal = policy.limits.total;
  if (policy.gracePeriodSeconds !== undefined) out.gracePeriodSeconds = policy.gracePeriodSeconds;
  out.profiles = policy.profiles.map((p) => ({
    name: p.name,
    pluginConfig: [{ name: 'DefaultEvictor', args: p.evictor }, ...p.strategies.map((s) => ({ name: s.name, args: s.args }))],
    plugins: {
      filter: { enabled: ['DefaultEvictor'] },
      preEvictionFilter: { enabled: ['DefaultEvictor'] },
      deschedule: { enabled: p.strategies.map((s) => s.name) },
    },
  }));
  // kube-tidy's own section, always written: it shows that the limits above hold per window.
  out.kubeTidy = {
    brakes: brakesOut(policy.brakes ?? DEFAULT_BRAKES),
    ...(policy.retention?.length ? { retention: policy.retention } : {}),
    ...(policy.objects?.length ? { objects: policy.objects.map((r) => ({ ...r, conditions: conditionsOf(r), minAge: duration(r.minAge) })) } : {}),
    ...(policy.ttl?.length ? { ttl: policy.ttl } : {}),
  };
  return out;
}

const duration = (ms: number): string => {
  const s = ms / 1000;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${rest || (!h && !m) ? `${rest}s` : ''}`;
};

function brakesOut(b: BrakesPolicy): Record<string, unknown> {
  return { window: duration(b.window), rates: b.rates.map((r) => ({ ...r, per: duration(r.per) })), abort: b.abort };
}
