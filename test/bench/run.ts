import { runColdStartBench } from './cold-start.js';
import { runCoreBench } from './core.js';
import { runDefragBench } from './defrag.js';
import { runDefragClusterBench } from './defrag-cluster.js';
import { runE2eBench } from './e2e.js';
import { runEvacuationBench } from './evacuation.js';
import { runFirstEventBench } from './first-event.js';
import { runFunctionsBench } from './functions.js';
import { runFuzzBench } from './fuzz.js';
import { runMultiKueueBench } from './multikueue.js';
import { runRequestsBench } from './requests.js';
import { runScaleBench } from './scale.js';

// `npm run bench`: every benchmark the project has, figures printed as a table and as one
// JSON line each (for notes and comparisons). Run with --expose-gc for memory figures.

const only = process.argv[2];

const benches: Record<string, () => Promise<object> | object> = {
  // A backlog (a quarter of the pods finished: what a polling tool faces) and the steady state
  // of an event-driven cluster (2% finished between sweeps).
  core: () => runCoreBench(),
  'core-steady': () => runCoreBench(100_000, 15, 0.02),
  defrag: () => runDefragBench(),
  'defrag-cluster': () => runDefragClusterBench(),
  functions: () => runFunctionsBench(),
  e2e: () => runE2eBench(),
  requests: () => runRequestsBench(),
  evacuation: () => runEvacuationBench(),
  multikueue: () => runMultiKueueBench(),
  'cold-start': () => runColdStartBench(),
  // The first event after a cold start with sender auth on, warm-up at start vs. none (issue 23).
  'first-event': () => runFirstEventBench(),
  // Not in the default run (minutes, and it expects wrong writes until issue 13 is fixed).
  ...(only === 'fuzz' ? { fuzz: () => runFuzzBench() } : {}),
  // Not in the default run either (tens of minutes): `npm run bench scale -- 20000,50000`.
  ...(only === 'scale' ? { scale: () => runScaleBench((process.argv[3] ?? '20000').split(',').map(Number)) } : {}),
  // In-process, no control plane: where the sweep's planner spends memory (issue 27). `npm run bench planner-memory -- 20000,150000`.
  ...(only === 'planner-memory'
    ? { 'planner-memory': async () => (await import('./planner-memory.js')).runPlannerMemoryBench((process.argv[3] ?? '20000').split(',').map(Number)) }
    : {}),
  // In-process, no control plane: the heap the orphan sweep keeps for what it lists (issue 27). `npm run bench orphan-memory -- 20000,150000`.
  ...(only === 'orphan-memory'
    ? { 'orphan-memory': async () => (await import('./orphan-memory.js')).runOrphanMemoryBench((process.argv[3] ?? '20000').split(',').map(Number)) }
    : {}),
  // Not in the default run (minutes, 30+ for 150,000 pods the first time; the population is cached as an etcd snapshot): `npm run bench scale-snapshot -- 20000,150000`.
  ...(only === 'scale-snapshot'
    ? { 'scale-snapshot': async () => (await import('./scale-snapshot.js')).runScaleSnapshotBench((process.argv[3] ?? '20000').split(',').map(Number)) }
    : {}),
  // Not in the default run: a storm of Failed pods through the event path beside the ceiling and the sweep (issues 35, 45). `npm run bench event-cost` (EVENT_COST_PODS 20000, EVENT_COST_FAILED 5000, EVENT_COST_IN_FLIGHT 32, EVENT_COST_ROWS, EVENT_COST_SERVE).
  ...(only === 'event-cost' ? { 'event-cost': async () => (await import('./event-cost.js')).runEventCostBench() } : {}),
  // Not in the default run: the serving layers' CPU per event, in process (issue 45). `npm run bench event-serve -- 20000`.
  ...(only === 'event-serve' ? { 'event-serve': async () => (await import('./event-serve.js')).runEventServeBench(Number(process.argv[3] ?? '20000')) } : {}),
  ...(only === 'due' ? { due: async () => (await import('./due.js')).runDueBench(Number(process.argv[3] ?? '300')) } : {}),
  // Not in the default run: finished Jobs removed by kube-tidy's sweep beside the Job TTL controller (issue 38). `npm run bench objects -- 200`.
  ...(only === 'objects' ? { objects: async () => (await import('./objects.js')).runObjectsBench(Number(process.argv[3] ?? '200')) } : {}),
  // Not in the default run: the npm package's size, install and CLI cold start (issue 46). `npm run bench package`.
  ...(only === 'package' ? { package: async () => (await import('./package.js')).runPackageBench() } : {}),
  // Not in the default run: the objects family's CPU per Job removed, pass and events, beside a plain client's DELETEs (issue 45). `npm run bench objects-cost -- 300`.
  ...(only === 'objects-cost' ? { 'objects-cost': async () => (await import('./objects-cost.js')).runObjectsCostBench(Number(process.argv[3] ?? '300')) } : {}),
  // Not in the default run: TTL on any kind's requests and CPU per removal, a namespace of 1,000 objects under its brakes, and one sweep's listing of a kind (issue 47). `npm run bench ttl-cost -- 200 20000`.
  ...(only === 'ttl-cost'
    ? { 'ttl-cost': async () => (await import('./ttl-cost.js')).runTtlCostBench(Number(process.argv[3] ?? '200'), Number(process.argv[4] ?? '20000')) }
    : {}),
  // Not in the default run: the production image's size, build and cold start from its own root filesystem (issue 46). `npm run bench image [-- warm|cold]`.
  ...(only === 'image' ? { image: async () => (await import('./image.js')).runImageBench(process.argv[3]) } : {}),
  // Not in the default run: TTL on any kind, expiry -> gone for labelled Deployments and Namespaces through the event path, beside Kyverno's and kube-janitor's polling (issue 47). `npm run bench ttl-expiry -- 50`.
  ...(only === 'ttl-expiry' ? { 'ttl-expiry': async () => (await import('./ttl-expiry.js')).runTtlExpiryBench(Number(process.argv[3] ?? '50')) } : {}),
  ...(only === 'brakes' ? { brakes: async () => (await import('./brakes.js')).runBrakesBench(Number(process.argv[3] ?? '20000')) } : {}),
};

for (const [name, bench] of Object.entries(benches)) {
  if (only && only !== name) continue;
  const result = await bench();
  console.log(`\n== ${name} ==`);
  for (const [k, v] of Object.entries(result)) console.log(`  ${k.padEnd(28)} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  console.log(JSON.stringify({ bench: name, ...result }));
}
