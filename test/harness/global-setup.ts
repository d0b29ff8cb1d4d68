// Vitest global setup for the integration project: one shared cluster per run, handed to
// test files as a kubeconfig path. Files isolate themselves with testNamespace().
import type { TestProject } from 'vitest/node';
import { startCluster } from './cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
    /** The shared cluster's audit log of write requests (test/harness/audit.ts). */
    auditLog: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The audit log costs one JSON line per write; the adversary tests read it as their oracle.
  const cluster = await startCluster({ name: 'shared', kwokNodes: 2, audit: true });
  project.provide('kubeconfig', cluster.kubeconfigPath);
  project.provide('auditLog', cluster.auditLogPath!);
  return () => cluster.stop();
}
