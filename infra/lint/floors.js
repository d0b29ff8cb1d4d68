// The floors of kube-tidy's library, lowest first: a module may import its own floor and the
// floors below it, never one above (infra/lint/floor-order.js enforces it; ARCHITECTURE.md
// "The boundaries" lists the same floors and test/unit/lint/floors-doc.test.ts keeps the two
// equal). Kept as data in one place so the rule, the doc and a reader agree on one order.
//
// A file's room is the first glob that matches, read from the top floor down: a host's core
// (shared/hosts/*/core) is the host's, not a pure core of the library. Within a floor any
// import is allowed; cycles are refused apart (infra/lint/import-cycles.js).

/** @type {{ name: string, why: string, rooms: string[] }[]} */
export const FLOORS = [
  {
    name: 'leaves',
    why: 'the wire types, the keys kube-tidy owns, configuration reading, the logger and the worker pools: they import nothing of the project above them',
    // shared/pool (in-order.ts, as-they-come.ts: a bounded number of promises in flight) was in
    // kube/ but knows nothing of Kubernetes; a leaf, so a room below kube could use it too.
    rooms: ['shared/model/**', 'shared/config/**', 'shared/log.ts', 'shared/pool/**'],
  },
  {
    name: 'bridge formats',
    why: 'every bridge format read into one internal event and the events kube-tidy sends, names validated: pure, and reading only the wire types',
    // A floor of its own: it reads no other pure core and none reads it, so neither may start to.
    rooms: ['shared/cloudevents/**'],
  },
  // The pure cores every family shares, in the order they are built: the terms a policy is
  // written in, what a policy is composed of, the composed document, then what decides over it.
  // On one floor they could read each other both ways unseen (the evictor read the planner's
  // snapshot.ts). policy/ stands on three floors, its files named: a new one gets its floor when
  // it is made.
  {
    name: 'policy terms',
    why: "the words every part of a policy is written in: namespaces, exit codes and seconds (common.ts), Go durations, label selectors and the descheduler's selector strings",
    rooms: ['shared/policy/{common,duration,label-selector,selector-string}.ts'],
  },
  {
    name: 'policy vocabulary',
    why: "what a policy is composed of, each part with its schema and its rule: the strategies and their registry, the evictor gate with its args, limits and the snapshot's index it reads, kube-tidy's brakes, retention, object and TTL rules",
    rooms: ['shared/strategies/**', 'shared/evictor/**', 'shared/policy/{brakes-schema,objects-schema,retention,ttl-schema}.ts'],
  },
  {
    name: 'policy',
    why: 'the composed policy document: the DeschedulerPolicy envelope, the validated Policy of the parts below, its loading (explicit nulls read as unset, every problem at once) and its normalized form',
    rooms: ['shared/policy/{schema,policy,errors,nulls,load,normalize}.ts'],
  },
  {
    name: 'pure cores',
    why: 'the decisions over a policy every family shares: the planner (which pods, in what order, within which limits), and the pure halves of the brakes and the reports',
    rooms: ['shared/selection/**', 'shared/brakes/core/**', 'shared/cleanup/reports/core/**'],
  },
  {
    name: 'metrics',
    why: 'the recorder: the client middleware in kube/ counts every request with it, so it stands below kube and imports only what is below',
    rooms: ['shared/metrics/**'],
  },
  {
    name: 'kube',
    why: 'the one typed Kubernetes edge and the one writer',
    rooms: ['shared/kube/**'],
  },
  {
    name: 'shared edges',
    why: 'what every family uses beside the writer: the brakes, CloudEvents out, the reports written, Pub/Sub',
    rooms: ['shared/brakes/io/**', 'shared/notify/**', 'shared/cleanup/reports/io/**', 'shared/gcp/**'],
  },
  {
    name: 'runtime',
    why: "the process: configuration, policy source, clients, the writer factory; a family's handle is built from it",
    rooms: ['shared/runtime/**'],
  },
  {
    name: 'family cores',
    why: "pure, but each its family's own: only its family reads it (a key another room needs lives in model/keys.ts)",
    rooms: ['shared/{defrag,evacuation,multikueue,objects}/core/**', 'shared/cleanup/due/core/**', 'shared/objects/reports/core/**'],
  },
  {
    name: 'families',
    why: "each family's entry, handle, configuration and I/O (pod cleanup with its own rooms the due list and reports' entry, MultiKueue, evacuation, defrag)",
    // Pod cleanup's rooms by name, not shared/cleanup/**: its due list's core and its reports'
    // core and writes stand on lower floors, and a file's room is the first glob from the top.
    rooms: [
      'shared/cleanup/*.ts',
      'shared/cleanup/io/**',
      'shared/cleanup/{due,reports}/*.ts',
      'shared/cleanup/due/io/**',
      'shared/{defrag,evacuation,multikueue,objects}/*.ts',
      'shared/{defrag,evacuation,multikueue,objects}/io/**',
      'shared/objects/reports/*.ts',
      'shared/objects/reports/io/**',
    ],
  },
  {
    name: 'serve',
    why: 'the transport-free target contract and the one resolver, with the HTTP adapters in serve/http/',
    rooms: ['shared/serve/**'],
  },
  {
    name: 'functions',
    why: 'the targets, declared as data',
    rooms: ['functions/**'],
  },
  {
    name: 'hosts',
    why: 'the programs that run the library (the CLI, the standalone program, the bridge they share, the production server and the functions-framework entry)',
    // The production server and the framework entry (shared/hosts/server/) read the list of
    // targets in functions/, so they stand above it: among the programs, not in serve/.
    rooms: ['shared/hosts/**'],
  },
];

/**
 * Imports allowed to run up a floor, each by importing and imported file with why. Empty: every
 * upward import found when the rule came in was fixed by moving a key or a type down.
 * @type {{ from: string, to: string, why: string }[]}
 */
export const EXCEPTIONS = [];
