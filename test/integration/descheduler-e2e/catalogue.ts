// Which of the descheduler v0.36.0 e2e tests (test/e2e) run against kube-tidy here, on which
// cluster, and which cannot run, with why. A test that fails for a reason kube-tidy documents
// (docs/differences-from-descheduler.md) would be listed in EXPECTED_DIFFERENCES with that
// reason; it is empty: every listed test is expected to pass.

/** Tests that deploy the descheduler (a Deployment of /bin/descheduler, played by the stand-in). */
export const DEPLOYMENT_TESTS = ['TestFailedPods', 'TestTooManyRestarts', 'TestLeaderElection'];

/** Tests that call runPodLifetimePlugin, which the patch turns into one kube-tidy run. */
export const POD_LIFETIME_TESTS = [
  'TestPodLifeTime_FailedPods',
  'TestPodLifeTime_SucceededPods',
  'TestNamespaceConstraintsInclude',
  'TestNamespaceConstraintsExclude',
  'TestEvictSystemCriticalPriority',
  'TestEvictSystemCriticalPriorityClass',
  'TestEvictDaemonSetPod',
  'TestThresholdPriority',
  'TestThresholdPriorityClass',
  'TestPodLabelSelector',
  'TestEvictAnnotation',
  'TestPodLifeTimeOldestEvicted',
];

/** Run again under HEAD's ClusterRole (no `pods delete`): terminal pods go through the Eviction API. */
export const HEAD_ROLE_TESTS = ['TestFailedPods'];

/** Test name (or subtest path) -> the documented difference that makes it fail. */
export const EXPECTED_DIFFERENCES: Record<string, string> = {};

export const NOT_RUN: Record<string, string> = {
  TestRemoveDuplicates:
    'RemoveDuplicates: a strategy kube-tidy does not implement (docs/policy.md: it runs PodLifeTime, RemoveFailedPods, RemovePodsHavingTooManyRestarts; a policy naming another plugin is refused)',
  TestTopologySpreadConstraint: 'RemovePodsViolatingTopologySpreadConstraint: a strategy kube-tidy does not implement',
  TestLowNodeUtilization:
    "LowNodeUtilization, run in-process through the descheduler's own plugin (not runPodLifetimePlugin): it tests the descheduler, and kube-tidy does not implement the strategy",
  TestLowNodeUtilizationKubernetesMetrics: 'needs metrics-server (metrics.k8s.io) and LowNodeUtilization, which kube-tidy does not implement',
  TestProtectPodsWithPVC: 'needs a default StorageClass with a provisioner that binds PVCs; the test control plane has none',
  TestLiveMigrationInBackground: 'needs KubeVirt (virt-operator, VMIs, live migration) on real nodes',
  TestDeschedulingInterval:
    "calls descheduler.RunDeschedulerStrategies in-process: it tests the descheduler's own loop, not a command kube-tidy can stand in for",
  TestClientConnectionConfiguration: "calls descheduler.RunDeschedulerStrategies in-process with client settings: the descheduler's own code",
};

/** `-test.run` pattern for exactly these top-level tests. */
export const runPattern = (tests: string[]): string => `^(${tests.join('|')})$`;
