// Where cleanup beyond pods' Reports live: one per (namespace, rule), under a name and labels of
// their own. Pod cleanup's reports are `kube-tidy-<profile slug>` (a DNS label, never a dot) and
// found by `reports.kube-tidy.dev/policy`; these are `kube-tidy-objects.<rule>` (a dot: no
// profile's name can take it) and found by `reports.kube-tidy.dev/object-rule`, which no pod
// report carries. So a pod pass never replaces or deletes an object report, nor the reverse.
// A rule's name is already a DNS label (policy/objects-schema.ts): used as is.
import { MANAGED_BY, MANAGED_BY_LABEL } from '../../../cleanup/reports/core/names.js';

export const OBJECT_RULE_LABEL = 'reports.kube-tidy.dev/object-rule';
export const OBJECT_ANNOTATIONS = {
  /** The rule's mode when the pass ran it: report (nothing removed) or delete. */
  mode: 'reports.kube-tidy.dev/rule-mode',
  /** What ran the pass: sweep, invoke, cli. */
  origin: 'reports.kube-tidy.dev/origin',
} as const;

export const objectReportName = (rule: string): string => `kube-tidy-objects.${rule}`;

export const objectReportLabels = (rule: string): Record<string, string> => ({ [MANAGED_BY_LABEL]: MANAGED_BY, [OBJECT_RULE_LABEL]: rule });

export const objectReportSelector = (rule: string): string => `${MANAGED_BY_LABEL}=${MANAGED_BY},${OBJECT_RULE_LABEL}=${rule}`;
