// Where a profile's reports live: one fixed name per (namespace, profile), so every pass
// replaces the same object instead of adding one, and two labels that find them all again (to
// delete those of namespaces with nothing left to say). Profile names are free text in the
// policy; object names and label values are not: a name that is already a lowercase DNS label
// is used as is, anything else is folded and suffixed with a hash of the exact name, so two
// profiles never share a report ("Nightly" and "nightly" differ).
import { createHash } from 'node:crypto';

export const OPENREPORTS = { group: 'openreports.io', version: 'v1alpha1', plural: 'reports', kind: 'Report' } as const;
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'kube-tidy';
export const POLICY_LABEL = 'reports.kube-tidy.dev/policy';
export const ANNOTATIONS = {
  /** The exact profile name (the label holds its slug). */
  policy: 'reports.kube-tidy.dev/policy',
  pass: 'reports.kube-tidy.dev/pass',
  mode: 'reports.kube-tidy.dev/mode',
  /** Results the size cap left out of `results` (the summary still counts them). */
  leftOut: 'reports.kube-tidy.dev/results-left-out',
  /** Kept pods the pass itself did not list (its answer's own cap): not in this report's results nor its summary. */
  keptNotListed: 'reports.kube-tidy.dev/pass-kept-not-listed',
} as const;

const PREFIX = 'kube-tidy-';
/** 63 (a label value) less room to spare; the name is PREFIX + slug, well under 253. */
const SLUG_MAX = 52;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The profile as an object-name part and a label value: itself when it is a lowercase DNS label of at most 52 characters. */
export function policySlug(profile: string): string {
  if (profile.length <= SLUG_MAX && DNS_LABEL.test(profile)) return profile;
  const hash = createHash('sha256').update(profile).digest('hex').slice(0, 8);
  const folded = profile
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX - 9)
    .replace(/-+$/, '');
  return folded ? `${folded}-${hash}` : hash;
}

/** The one Report of `profile` in each namespace. */
export const reportName = (profile: string): string => `${PREFIX}${policySlug(profile)}`;

/** The labels every report of `profile` carries, and the selector that lists them. */
export const reportLabels = (profile: string): Record<string, string> => ({ [MANAGED_BY_LABEL]: MANAGED_BY, [POLICY_LABEL]: policySlug(profile) });

export const reportSelector = (profile: string): string =>
  Object.entries(reportLabels(profile))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
