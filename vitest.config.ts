import { defineConfig } from 'vitest/config';

// Two projects: pure unit tests (fast, no cluster) and integration tests that share
// real control planes started once per run by the harness's global setup.
export default defineConfig({
  test: {
    reporters: ['default', './test/reporters/summary-line.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['shared/**/*.test.ts', 'functions/**/*.test.ts', 'test/unit/**/*.test.ts'],
          // Unit tests first, then the integration tests with their own worker limit.
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          // kube-tidy's core against the real descheduler v0.36.0 (npm test builds the oracle first).
          name: 'conformance',
          include: ['test/conformance/**/*.test.ts'],
          sequence: { groupOrder: 0 },
          testTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          sequence: { groupOrder: 1 },
          globalSetup: ['./test/harness/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          // One shared set of clusters per run; files isolate themselves by namespace.
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
    ],
  },
});
