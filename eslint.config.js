// Flat config: recommended type-aware-free rules keep lint fast on 2 cores, plus the boundaries
// the design depends on (ARCHITECTURE.md): the pure core stays pure, rooms import downward only
// (infra/lint/floors.js), the hosts stand apart, and only the writer in shared/kube changes a
// cluster.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importCycles from './infra/lint/import-cycles.js';
import floorOrder from './infra/lint/floor-order.js';
import moduleState from './infra/lint/module-state.js';
import prettier from 'eslint-config-prettier';

/** Folders whose modules decide: no client, no logger, no runtime, no I/O, no clock. */
const PURE = [
  'shared/model/**',
  'shared/policy/**',
  'shared/strategies/**',
  'shared/evictor/**',
  'shared/selection/**',
  'shared/cloudevents/**',
  'shared/*/core/**',
  // Pod cleanup's own rooms' cores (its due list's rule, its reports' builder), and cleanup
  // beyond pods' reports' builder.
  'shared/cleanup/*/core/**',
  'shared/objects/*/core/**',
  // A host's own decisions (the standalone program's election, fence and schedule rules).
  'shared/hosts/*/core/**',
];

/** The programs that run the library (ARCHITECTURE.md "Shared edges"). */
const HOSTS = { group: ['**/hosts/**'], message: 'shared/hosts holds the programs that run the library: a library room or function never imports one' };

const SETTLE = {
  group: ['**/kube/admission.js'],
  importNames: ['settleRemoval'],
  message:
    'the writer settles every removal ticket on the answer (kube/writer.ts): a holder that sent nothing gives its ticket back with `unsent`, a plan with `spentByPlan`',
};

const IMPURE_IMPORTS = [
  {
    group: ['@kubernetes/client-node', 'pino', 'express', '@google-cloud/*', '@opentelemetry/*'],
    message: 'the pure core takes objects and `now` in and returns decisions: no client, logger or framework',
  },
  {
    // Pod cleanup, all but its reports' builder: a pure core every family may build its Reports
    // with, a floor below (its io/ is caught by '**/io/**').
    group: [
      '**/log.js',
      '**/runtime/**',
      '**/serve/**',
      '**/kube/**',
      '**/io/**',
      '**/hosts/**',
      '**/cli/**',
      '**/cleanup/*.js',
      '**/cleanup/due/**',
      '**/cleanup/reports/*.js',
      '**/metrics/**',
    ],
    message: "the pure core must not reach the runtime, the cluster or a family's I/O (metrics are recorded at the edges, from results)",
  },
  {
    group: [
      'node:fs',
      'node:fs/*',
      'node:http',
      'node:https',
      'node:net',
      'node:child_process',
      'node:os',
      'node:worker_threads',
      'fs',
      'http',
      'https',
      'net',
      'child_process',
      'os',
    ],
    message: 'no I/O in the pure core',
  },
];

// The client-node methods that change a cluster. Only shared/kube (the writer and its
// primitives) may call them; fixtures in test/ and the demos in infra/ set clusters up.
const NO_WRITES = {
  // The writer's own methods share some names (writer.patchNode): calls on a writer are the point.
  selector: 'CallExpression[callee.property.name=/^(create|delete|patch|replace)(Namespaced|Cluster|Node|Collection)/]:not([callee.object.name=/[wW]riter$/])',
  message: 'every change to a cluster goes through the writer (shared/kube/writer.ts): DRY_RUN, preconditions, protected namespaces and Events live there',
};

const NO_SETTLE = {
  // The class's own settle, which settleRemoval, unsent and spentByPlan wrap (kube/admission.ts).
  selector: "MemberExpression[object.name='RemovalTicket'][property.name='settle']",
  message: SETTLE.message,
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'infra/local/go/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Layout is Prettier's (npm run format); no ESLint rule argues with it.
  prettier,
  {
    // The bundle's entry is plain CommonJS run by Node (infra/bundle/loader.cjs).
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        __filename: 'readonly',
        process: 'readonly',
        Buffer: 'readonly',
        globalThis: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Rooms import downward only: a cycle, even through a type, is refused (infra/lint/import-cycles.js).
    files: ['**/*.ts'],
    plugins: { 'kube-tidy': { rules: { 'no-import-cycle': importCycles, 'floor-order': floorOrder, 'module-state': moduleState } } },
    rules: { 'kube-tidy/no-import-cycle': 'error' },
  },
  {
    // Rooms import downward only: the floors of infra/lint/floors.js, type imports included.
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'kube-tidy/floor-order': 'error' },
  },
  {
    // No process state in the library: what lives across requests is built by a host and handed
    // down; only hosts exit the process (infra/lint/module-state.js, its named exceptions there).
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: ['shared/hosts/**', '**/*.test.ts'],
    rules: { 'kube-tidy/module-state': 'error' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: ['shared/kube/**', '**/*.test.ts'],
    rules: {
      'no-restricted-syntax': ['error', NO_WRITES, NO_SETTLE],
    },
  },
  {
    // The outer wall: the hosts (shared/hosts: the CLI, the standalone program, the bridge they
    // share) run the library; no library room or function reaches back into one.
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: ['shared/hosts/**', '**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [HOSTS, SETTLE] }] },
  },
  {
    // Admission is part of the write (issue 45): no family, host or function settles a ticket.
    files: ['shared/hosts/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [SETTLE] }] },
  },
  {
    // ... but the writer, beside the port, does.
    files: ['shared/kube/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [HOSTS] }] },
  },
  {
    files: PURE.map((p) => `${p}.ts`),
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: IMPURE_IMPORTS }],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: "configuration is read by a family's config.ts and passed in" },
        { name: 'fetch', message: 'no I/O in the pure core' },
        { name: 'setTimeout', message: 'no timers in the pure core' },
        { name: 'setInterval', message: 'no timers in the pure core' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'the clock is injected: take `now` as an argument' },
        { object: 'Math', property: 'random', message: 'decisions are deterministic' },
        { object: 'performance', property: 'now', message: 'the clock is injected' },
      ],
      // Listed with the writer's selector: a later block's rule replaces an earlier one's.
      'no-restricted-syntax': [
        'error',
        NO_WRITES,
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'the clock is injected: take `now` as an argument' },
      ],
    },
  },
);
