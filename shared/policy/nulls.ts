// Explicit nulls in a DeschedulerPolicy read as unset, as the descheduler reads them: its types
// are decoded by Go's encoding/json rules (sigs.k8s.io/json), where a JSON null (YAML `~`, or a
// key with nothing after it) sets a pointer, slice, map or interface to nil and leaves any other
// field at its zero value, which its defaulting then treats as unset. So `minPodAge: null`,
// `namespaces: null`, `labelSelector: null`, `args: null` or `maxNoOfPodsToEvictTotal: null`
// load as if the key were absent, in the envelope, the profiles, every plugin's args and
// DefaultEvictor's. A null as a list item is not a field and stays what it is (refused).
// kubeTidy is kube-tidy's own section, with its own schema and no Go reader: left as written,
// apart from `kubeTidy: null` itself.

/** A copy of `value` without the object keys whose value is null, at every depth. */
function dropNullKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNullKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = dropNullKeys(v);
  return out;
}

/** The policy as parsed, its explicit nulls (outside kubeTidy) read as unset. */
export function nullsAsUnset(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const { kubeTidy, ...rest } = raw as Record<string, unknown>;
  const out = dropNullKeys(rest) as Record<string, unknown>;
  return kubeTidy === null || kubeTidy === undefined ? out : { ...out, kubeTidy };
}
