// Vitest global setup for the integration project: one shared cluster per run, handed to
// test files as a kubeconfig path. Files isolate themselves with testNamespace().
import type { TestProject } from 'vitest/node';
import { startCluster } from './cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startCluster({ name: 'shared', kwokNodes: 2 });
  project.provide('kubeconfig', cluster.kubeconfigPath);
  return () => cluster.stop();
}
