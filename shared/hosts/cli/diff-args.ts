// The flags of `kube-tidy plan --against`, offline and live alike: which policy is the one in
// force, and the gate on what a change newly selects. Each returns the value or the problem,
// so the commands list every problem at once (exit 2).
import type { NewSelectionGate } from '../../selection/diff.js';

/** The policy a proposed one is compared with: a file, a ConfigMap of the cluster, or the deployed kube-tidy's ConfigMap. */
export type Against = { file: string } | { configMap: string } | { deployed: true };

/** The word for the policy the deployed kube-tidy reads (ConfigMap kube-tidy/kube-tidy-policy). */
export const DEPLOYED = 'deployed';
const CONFIGMAP_PREFIX = 'configmap:';

/** `--against deployed` | `--against configmap:NS/NAME` | `--against FILE` (a file named "deployed" is written ./deployed). */
export function parseAgainst(value: string): Against | { problem: string } {
  if (value === DEPLOYED) return { deployed: true };
  if (value.startsWith(CONFIGMAP_PREFIX)) {
    const ref = value.slice(CONFIGMAP_PREFIX.length);
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(ref))
      return { problem: `--against "${value}": expected configmap:NAMESPACE/NAME` };
    return { configMap: ref };
  }
  if (value === '') return { problem: '--against: expected a policy FILE, "deployed" or configmap:NAMESPACE/NAME' };
  return { file: value };
}

/** `--max-new N` (pods) or `--max-new P%` (of the pods seen, up to two decimals). */
export function parseMaxNew(value: string): NewSelectionGate | { problem: string } {
  const count = /^\d{1,9}$/.exec(value);
  if (count) return { max: Number(value) };
  const pct = /^(\d{1,3}(\.\d{1,2})?)%$/.exec(value);
  if (pct && Number(pct[1]) <= 100) return { percent: Number(pct[1]) };
  return { problem: `--max-new "${value}": expected a whole number of pods such as 25, or a percentage of the pods seen from 0% to 100% such as 2.5%` };
}

/** How the gate reads in the summary line and the JSON total. */
export const gateText = (gate: NewSelectionGate): string => ('max' in gate ? String(gate.max) : `${gate.percent}%`);

/** --against and --max-new as checked for a command; `against` undefined: not a diff. */
export interface DiffFlags {
  against: { file: string } | { configMap: string };
  /** As the user wrote it, for the summary. */
  name: string;
  gate: NewSelectionGate | undefined;
}

/**
 * The diff flags of `plan --kubeconfig` / `run`, their problems pushed onto `problems`.
 * `newPolicyConfigMap`: where the new policy is read from when --policy is absent; `deployedRef`:
 * the ConfigMap "deployed" names.
 */
export function liveDiffFlags(
  mode: 'plan' | 'run',
  v: { against?: string; 'max-new'?: string; explain?: boolean; policy?: string },
  refs: { newPolicyConfigMap: string; deployedRef: string },
  problems: string[],
): DiffFlags | undefined {
  if (v.against === undefined) {
    if (v['max-new'] !== undefined) problems.push('--max-new gates a diff: add --against');
    return undefined;
  }
  if (mode === 'run') problems.push('--against compares two policies: it is for "kube-tidy plan"');
  if (v.explain) problems.push('--explain is for a plan: with --against, each side of the diff says why');
  const parsed = parseAgainst(v.against);
  const gate = v['max-new'] === undefined ? undefined : parseMaxNew(v['max-new']);
  if (gate && 'problem' in gate) problems.push(gate.problem);
  if ('problem' in parsed) {
    problems.push(parsed.problem);
    return undefined;
  }
  const against = 'deployed' in parsed ? { configMap: refs.deployedRef } : parsed;
  if ('configMap' in against && v.policy === undefined && against.configMap === refs.newPolicyConfigMap)
    problems.push(`--against ${v.against} and the new policy are both ConfigMap ${against.configMap}: pass the new one with --policy FILE`);
  return { against, name: v.against, gate: gate && 'problem' in gate ? undefined : gate };
}
