// Why an object a rule selects stays anyway, one check per owner rule, each returning its
// reason (as the evictor's checks do for pods). For claims, what an operator who once lost data
// expects: a claim something still names is never removed, whatever its condition says.
import type { ObjectRule } from '../../policy/objects-schema.js';
import type { ObjectContext, StoredObject } from './model.js';

const key = (o: { namespace: string; name: string }) => `${o.namespace}/${o.name}`;

/** A claim of a StatefulSet's volumeClaimTemplates ("<template>-<set>-<ordinal>"): kept unless its retention policy lets it go. */
function statefulSetKeeps(o: StoredObject, ctx: ObjectContext): string | undefined {
  for (const s of ctx.statefulSets) {
    if (s.namespace !== o.namespace) continue;
    for (const t of s.templates) {
      const prefix = `${t}-${s.name}-`;
      if (!o.name.startsWith(prefix)) continue;
      const ordinal = o.name.slice(prefix.length);
      if (!/^(0|[1-9]\d*)$/.test(ordinal)) continue;
      // whenScaled: Delete says a claim above the replicas may go (the StatefulSet controller would delete it itself).
      if (s.whenScaled === 'Delete' && Number(ordinal) >= s.replicas) return undefined;
      return `a claim of StatefulSet ${s.name}'s volumeClaimTemplates ${t} (persistentVolumeClaimRetentionPolicy whenScaled ${s.whenScaled})`;
    }
  }
  return undefined;
}

/** The reason `o` is kept though `rule` selects it; undefined: nothing protects it. */
export function protectedBy(o: StoredObject, rule: ObjectRule, ctx: ObjectContext): string | undefined {
  if (o.kind !== 'PersistentVolumeClaim') return undefined;
  const pod = ctx.podClaims.get(key(o));
  if (pod) return `used by pod ${pod}, which is not finished`;
  if (ctx.templateClaims.has(key(o))) return "named by a workload's pod template";
  const set = statefulSetKeeps(o, ctx);
  if (set) return set;
  if (rule.mode !== 'delete' || !o.volumeName) return undefined;
  const policy = ctx.volumes.get(o.volumeName);
  if (policy === undefined) return `its volume ${o.volumeName} could not be read: its reclaim policy is unknown`;
  if (!(rule.reclaimPolicy ?? []).includes(policy as 'Delete'))
    return `its volume ${o.volumeName} has reclaim policy ${policy}, which the rule's reclaimPolicy does not accept`;
  return undefined;
}
