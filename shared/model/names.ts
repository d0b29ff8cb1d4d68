// Names as Kubernetes validates them (k8s.io/apimachinery pkg/util/validation: IsDNS1123Label,
// IsDNS1123Subdomain), checked before a name goes anywhere near a URL. A name that passes
// here is one path segment that cannot be '.', '..', empty, or contain '/', '%' or a NUL: an
// API path built from it keeps the shape it was written with.
//
// The length is checked first, so the patterns only ever run over at most 253 characters;
// they are also free of nested quantifiers over overlapping classes, so they stay linear.

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;

const LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/** Why `value` is not a DNS-1123 label (a namespace), or undefined when it is one. */
export function dns1123LabelProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (value.length > DNS1123_LABEL_MAX) return `must be at most ${DNS1123_LABEL_MAX} characters (got ${value.length})`;
  if (!LABEL.test(value)) return "must be a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter or digit";
  return undefined;
}

/** Why `value` is not a DNS-1123 subdomain (a pod, Job or ConfigMap name), or undefined. */
export function dns1123SubdomainProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (value.length > DNS1123_SUBDOMAIN_MAX) return `must be at most ${DNS1123_SUBDOMAIN_MAX} characters (got ${value.length})`;
  // Each dot-separated part is a label; "." and ".." have empty parts and fail here.
  for (const part of value.split('.')) {
    if (!LABEL.test(part)) return "must be a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit";
  }
  return undefined;
}

// uids are UUIDs and resourceVersions opaque decimal strings in practice; both travel into
// preconditions in request bodies, never into paths, but a bound keeps them from carrying
// megabytes into logs and answers.
const TOKEN = /^[A-Za-z0-9][-A-Za-z0-9_.:]*$/;
export const TOKEN_MAX = 128;

/** Why `value` is not a plausible uid or resourceVersion, or undefined. */
export function tokenProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (value.length > TOKEN_MAX) return `must be at most ${TOKEN_MAX} characters (got ${value.length})`;
  if (!TOKEN.test(value)) return 'must be letters, digits and -_.: only';
  return undefined;
}
