// The Knative Eventing CRDs mark their specs x-kubernetes-preserve-unknown-fields (for
// experimental features), so the API server keeps a misspelt field silently; in a real
// installation Knative's webhook would refuse it, but none runs here. This check closes the
// gap from the same CRDs: every field an object sets must be declared in the CRD's schema.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
}

export function crdSchemas(dir: string): Map<string, Schema> {
  const out = new Map<string, Schema>();
  for (const file of readdirSync(dir)) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const crd = doc.toJS() as {
        kind?: string;
        spec?: { group: string; names: { kind: string }; versions: { name: string; schema: { openAPIV3Schema: Schema } }[] };
      };
      if (crd?.kind !== 'CustomResourceDefinition' || !crd.spec) continue;
      for (const v of crd.spec.versions) out.set(`${crd.spec.group}/${v.name} ${crd.spec.names.kind}`, v.schema.openAPIV3Schema);
    }
  }
  return out;
}

/** Paths of fields `value` sets that `schema` does not declare. */
export function undeclared(value: unknown, schema: Schema, path = ''): string[] {
  if (Array.isArray(value)) return schema.items ? value.flatMap((v, i) => undeclared(v, schema.items!, `${path}[${i}]`)) : [];
  if (value === null || typeof value !== 'object') return [];
  // Free-form maps (labels, annotations, attributes) declare their values, not their keys.
  if (!schema.properties)
    return typeof schema.additionalProperties === 'object'
      ? Object.entries(value).flatMap(([k, v]) => undeclared(v, schema.additionalProperties as Schema, `${path}.${k}`))
      : [];
  return Object.entries(value).flatMap(([k, v]) => {
    if (path === '' && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) return [];
    const sub = schema.properties![k];
    return sub ? undeclared(v, sub, path ? `${path}.${k}` : k) : [path ? `${path}.${k}` : k];
  });
}
