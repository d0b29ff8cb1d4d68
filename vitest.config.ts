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
          // A timeout here guards against a hang, it measures nothing: vitest's 5 s default was
          // met by tests that start ESLint, a child process or a bundle on two busy cores (the
          // lint tests' first ESLint call took longer than 5 s at load 14), so a newcomer's
          // first `npm test` on a busy machine failed where a quiet one passed.
          testTimeout: 60_000,
          hookTimeout: 120_000,
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
