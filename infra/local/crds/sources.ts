// The upstream CRDs the tests install, each set from the Go module that publishes it, by pinned
// version: the schema the test API server validates against is the project's own, never a copy
// in this repository or beside it. A set names its files one by one (all or nothing), so a
// release that moved or renamed one fails the fetch instead of leaving a test without its kind.

export interface CrdModule {
  module: string;
  version: string;
  /** The folder inside the module's zip. */
  from: string;
  files: readonly string[];
  /** Put before each copied name, where the set joins two modules (Knative's eventing_, serving_). */
  prefix?: string;
}

export interface CrdSet {
  /** Why the tests need it: printed by the fetch and read by a person choosing a new version. */
  purpose: string;
  modules: readonly CrdModule[];
}

const SETS = {
  // github.com/openreports/reports-api v0.2.1: the newest tag on the proxy when first written.
  openreports: {
    purpose: 'openreports.io/v1alpha1 Report and ClusterReport, which sweep, invoke and the CLI write',
    modules: [
      {
        module: 'github.com/openreports/reports-api',
        version: 'v0.2.1',
        from: 'config/crd',
        files: ['openreports.io_reports.yaml', 'openreports.io_clusterreports.yaml'],
      },
    ],
  },
  // sigs.k8s.io/kueue v0.19.2: the MultiKueue release facts and code were read against (v1beta2
  // stored, v1beta1 served, no conversion webhook in these base files). Only the six kinds the
  // tests create or read: a ResourceFlavor or Cohort would invite tests that need Kueue running.
  kueue: {
    purpose: 'Kueue: MultiKueue clusters and configs, queues, admission checks, Workloads',
    modules: [
      {
        module: 'sigs.k8s.io/kueue',
        version: 'v0.19.2',
        from: 'config/components/crd/bases',
        files: [
          'kueue.x-k8s.io_admissionchecks.yaml',
          'kueue.x-k8s.io_clusterqueues.yaml',
          'kueue.x-k8s.io_localqueues.yaml',
          'kueue.x-k8s.io_multikueueclusters.yaml',
          'kueue.x-k8s.io_multikueueconfigs.yaml',
          'kueue.x-k8s.io_workloads.yaml',
        ],
      },
    ],
  },
  // knative.dev/eventing v0.50.0 and knative.dev/serving v0.50.0: one Knative release (both
  // tagged July 2026), the newest eventing the module proxy serves; the ApiServerSource adapter's
  // OIDC was read in eventing v0.50.0. These five files are byte for byte the ones the tests were written
  // against (eventing main of 2026-06-17, serving main of 2026-08-21).
  knative: {
    purpose: 'Knative: the event sources, Broker and Trigger the manifests declare, and the Service',
    modules: [
      {
        module: 'knative.dev/eventing',
        version: 'v0.50.0',
        from: 'config/core/resources',
        files: ['apiserversource.yaml', 'broker.yaml', 'pingsource.yaml', 'trigger.yaml'],
        prefix: 'eventing_',
      },
      {
        module: 'knative.dev/serving',
        version: 'v0.50.0',
        from: 'config/core/300-resources',
        files: ['service.yaml'],
        prefix: 'serving_',
      },
    ],
  },
} as const satisfies Record<string, CrdSet>;

export type CrdSetName = keyof typeof SETS;
export const CRD_SETS: Readonly<Record<CrdSetName, CrdSet>> = SETS;
