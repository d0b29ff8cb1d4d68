// What `kube-tidy descheduler` may do under the ServiceAccount it runs as, asked of the API
// server once at start (SelfSubjectAccessReview: the authorizer's own answer, not a guess from
// a 403 mid-cycle). Two answers change how it works, so a descheduler Deployment runs under the
// descheduler's own ClusterRole unchanged:
// - `pods delete`: v0.36.0's role grants it; the role after (descheduler#1887, PR #1888) does
//   not. Without it a pod stored Succeeded or Failed goes through the Eviction API, which
//   removes a terminal pod whatever its budgets say (writer.ts `terminalVia`).
// - the brakes' ledger (a ConfigMap: get, create, update in its namespace): the descheduler's
//   role never granted ConfigMaps. Without it the policy's maxNoOfPodsToEvict* hold per cycle,
//   as in the descheduler, instead of across cycles, events and instances.
import { AuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { BRAKES_NAME } from '../../brakes/io/store.js';
import { toKubeError } from '../../kube/errors.js';

export interface Access {
  /** May DELETE pods in every namespace. */
  deletePods: boolean;
  /** May read, create and update the ledger's ConfigMap in `ledgerNamespace`. */
  ledger: boolean;
}

type Review = { verb: string; resource: string; namespace?: string; name?: string; subresource?: string };

export async function probeAccess(kc: KubeConfig, ledgerNamespace: string): Promise<Access> {
  const authz = kc.makeApiClient(AuthorizationV1Api);
  const allowed = async (r: Review): Promise<boolean> => {
    try {
      const answer = await authz.createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { group: '', ...r } } } });
      return answer.status?.allowed === true;
    } catch (e) {
      throw toKubeError(e, `ask the API server whether this account may ${r.verb} ${r.resource}`);
    }
  };
  const cm = { resource: 'configmaps', namespace: ledgerNamespace };
  const [deletePods, get, create, update] = await Promise.all([
    allowed({ verb: 'delete', resource: 'pods' }),
    allowed({ ...cm, verb: 'get', name: BRAKES_NAME }),
    allowed({ ...cm, verb: 'create' }),
    allowed({ ...cm, verb: 'update', name: BRAKES_NAME }),
  ]);
  return { deletePods, ledger: get && create && update };
}
