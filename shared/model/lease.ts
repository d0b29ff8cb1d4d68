// A coordination.k8s.io/v1 Lease's spec, as the election decides on it and the Lease client
// reads and writes it: a leaf, so shared/kube need not reach into a host for it.

export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number | null;
}
