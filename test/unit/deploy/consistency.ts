// An independent reading of the Knative manifests against serverless.yml: what each function
// is declared to get (image, target, triggers, schedules, filters, delivery), looked up in the
// objects as a cluster would see them. Returns every mismatch, as sentences.
import { kebab, type Declaration } from '../../../infra/declaration/declaration.js';

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
} & Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export function mismatches(decl: Declaration, objects: Obj[]): string[] {
  const out: string[] = [];
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  const services = new Map(
    of('Service')
      .filter((o) => o.apiVersion === 'serving.knative.dev/v1')
      .map((s) => [s.metadata.name, s as Any]),
  );
  const triggers = of('Trigger') as Any[];
  const pings = new Map(of('PingSource').map((p) => [p.metadata.name, p as Any]));
  const sources = of('ApiServerSource') as Any[];
  const watched = new Set(sources.flatMap((s) => (s.spec.mode === 'Resource' ? s.spec.resources.map((r: Any) => r.kind) : [])));

  for (const [target, f] of Object.entries(decl.functions)) {
    const svc = services.get(kebab(target));
    if (!svc) {
      out.push(`${target} has no Knative Service`);
      continue;
    }
    const c = svc.spec.template.spec.containers[0];
    if (c.image !== decl.provider.image) out.push(`${target} runs image ${c.image}, not ${decl.provider.image}`);
    const env = new Map((c.env ?? []).map((e: Any) => [e.name, e.value]));
    if (env.get('FUNCTION_TARGET') !== target) out.push(`${target}'s Service sets FUNCTION_TARGET=${env.get('FUNCTION_TARGET')}`);
    if (svc.spec.template.spec.serviceAccountName !== kebab(target)) out.push(`${target} runs as ${svc.spec.template.spec.serviceAccountName}`);
    const mine = triggers.filter((t) => t.spec.subscriber?.ref?.name === kebab(target));
    const expected = new Set<string>();
    for (const e of f.events) {
      if ('cloudEvent' in e) {
        const key = JSON.stringify({ type: e.cloudEvent.type, kind: e.cloudEvent.kind });
        expected.add(key);
        if (!mine.some((t) => JSON.stringify(t.spec.filter?.attributes) === key))
          out.push(`${target}: no Trigger filters type ${e.cloudEvent.type} and kind ${e.cloudEvent.kind}`);
        if (!watched.has(e.cloudEvent.kind)) out.push(`${target}: no ApiServerSource in Resource mode watches ${e.cloudEvent.kind}`);
      } else if ('shards' in e) {
        const key = JSON.stringify({ type: e.shards.type });
        expected.add(key);
        if (!mine.some((t) => JSON.stringify(t.spec.filter?.attributes) === key))
          out.push(`${target}: no Trigger brings its shards (type ${e.shards.type}) back`);
        if (!env.get('SWEEP_SHARD_SINK')) out.push(`${target} takes shards but has no SWEEP_SHARD_SINK to post them to`);
      } else if ('schedule' in e) {
        const t = mine.find(
          (t) =>
            t.spec.filter?.attributes?.type === 'dev.knative.sources.ping' &&
            pings.get(String(t.spec.filter.attributes.source).split('/').pop() ?? '')?.spec.schedule === e.schedule.cron,
        );
        if (!t) out.push(`${target}: no PingSource with schedule "${e.schedule.cron}" reaches it through a Trigger`);
        else expected.add(JSON.stringify(t.spec.filter.attributes));
      } else if ('http' in e && e.http.visibility === 'cluster-local' && svc.metadata.labels?.['networking.knative.dev/visibility'] !== 'cluster-local') {
        out.push(`${target} is declared cluster-local but its Service is public`);
      }
    }
    for (const t of mine) if (!expected.has(JSON.stringify(t.spec.filter?.attributes))) out.push(`${target}: Trigger ${t.metadata.name} is not declared`);
  }
  for (const t of triggers) {
    const sub = t.spec.subscriber?.ref?.name;
    if (!services.has(sub)) out.push(`Trigger ${t.metadata.name} subscribes a missing Service ${sub}`);
    const dls = t.spec.delivery?.deadLetterSink?.ref?.name;
    if (!t.spec.delivery?.retry || !services.has(dls)) out.push(`Trigger ${t.metadata.name} has no retries or no dead-letter Service`);
  }
  for (const name of services.keys()) {
    if (name !== 'dead-letters' && !Object.keys(decl.functions).some((t) => kebab(t) === name)) out.push(`Service ${name} is not declared`);
  }
  return out;
}
