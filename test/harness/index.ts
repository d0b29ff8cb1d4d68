// The harness API for tests and tools; see README.md in this directory.
export { startCluster, type Cluster, type ClusterOptions } from './cluster.js';
export { installCrds, installOpenReportsCrds, kubectl, upstreamCrdsDir } from './crds.js';
export { sharedAudit, sharedCluster, testNamespace, type SharedCluster, type TestNamespace } from './shared.js';
export { waitFor } from './wait.js';
export { EXIT_CODE_ANNOTATION, REASON_ANNOTATION } from './kwok-annotations.js';
export { AuditLog, describeWrite, notControlPlane, type AuditMark, type AuditWrite } from './audit.js';
export { finishedJob, jobExists, type FinishedJobOptions } from './jobs.js';
export { startKueueWorkloadStandin, type KueueWorkloadStandin } from './kueue-workload-standin.js';
