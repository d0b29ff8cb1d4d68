// Which brakes' ledger `kube-tidy plan --kubeconfig` and `kube-tidy run` charge: the deployed
// kube-tidy's, so a person's run and the deployment share one set of limits (issue 33: a run
// that kept its own ledger in `kube-tidy` while the deployment's was in `ops` let 10 of 60 pods
// go under a cap of 5). Found as the deployed policy is, by its fixed name: --brakes-namespace
// when given; else the one ConfigMap named kube-tidy-brakes in the cluster (a deployment writes
// it on its first removal, wherever BRAKES_NAMESPACE / KUBE_TIDY_NAMESPACE put it); else, with
// none yet, the namespace of the policy's ConfigMap (where the chart installs kube-tidy), or
// kube-tidy. More than one: the one beside the policy, else the one in kube-tidy, else the
// person names one (a run must not guess whose limits it spends).
import type { CoreV1Api } from '@kubernetes/client-node';
import { BRAKES_NAME } from '../../brakes/io/store.js';
import { classifyKubeError, toKubeError } from '../../kube/errors.js';
import { InputError } from './input.js';

/** Where the ledger is when nothing else says (BRAKES_NAMESPACE's default). */
export const DEFAULT_LEDGER_NAMESPACE = 'kube-tidy';

export interface LedgerChoice {
  namespace: string;
  /** Said on stderr: why this one. */
  why: string;
}

export interface LedgerHints {
  /** --brakes-namespace. */
  flag?: string | undefined;
  /** The namespace of the ConfigMap the policy was read from; none for --policy FILE. */
  policyNamespace?: string | undefined;
}

export async function chooseLedger(core: Pick<CoreV1Api, 'listConfigMapForAllNamespaces'>, hints: LedgerHints): Promise<LedgerChoice> {
  if (hints.flag !== undefined) return { namespace: hints.flag, why: '--brakes-namespace' };
  const fallback = hints.policyNamespace ?? DEFAULT_LEDGER_NAMESPACE;
  const beside = hints.policyNamespace === undefined ? 'kube-tidy' : `the policy's namespace, ${hints.policyNamespace}`;
  let found: string[];
  try {
    const list = await core.listConfigMapForAllNamespaces({ fieldSelector: `metadata.name=${BRAKES_NAME}` });
    found = list.items.map((cm) => cm.metadata?.namespace ?? '').filter(Boolean);
  } catch (e) {
    const kind = classifyKubeError(e).kind;
    if (kind !== 'forbidden') throw toKubeError(e, `list configmaps ${BRAKES_NAME} in every namespace`);
    return { namespace: fallback, why: `may not list ConfigMaps in every namespace to find the deployed one: ${beside}; name it with --brakes-namespace` };
  }
  if (found.length === 1) return { namespace: found[0]!, why: 'the one in the cluster' };
  if (found.length === 0) return { namespace: fallback, why: `none in the cluster yet: ${beside}, created with the first removal` };
  if (hints.policyNamespace !== undefined && found.includes(hints.policyNamespace))
    return { namespace: hints.policyNamespace, why: `beside the policy (ledgers also in ${found.filter((n) => n !== hints.policyNamespace).join(', ')})` };
  // Where the chart installs by default, and where the CLI charged before it looked.
  if (found.includes(DEFAULT_LEDGER_NAMESPACE))
    return {
      namespace: DEFAULT_LEDGER_NAMESPACE,
      why: `the default namespace's (ledgers also in ${found.filter((n) => n !== DEFAULT_LEDGER_NAMESPACE).join(', ')})`,
    };
  throw new InputError('--brakes-namespace', [
    { path: '', message: `the cluster has ${found.length} brakes' ledgers (in ${found.join(', ')}): name the one to charge` },
  ]);
}
