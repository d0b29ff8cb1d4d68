// The seeded fuzz (fuzz.ts) in its CI size: FUZZ_RUNS events (default 10,000) with a fixed
// seed against the real functions, mostly podTerminated, a share to evacuation, jobDeleted,
// sweep, orphanSweep and defrag. Fails on any write outside the policy as applied to the
// stored pods, any pod write without uid + resourceVersion preconditions, and any 5xx.
// More events: `npm run bench fuzz` (FUZZ_RUNS, FUZZ_SEED).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testNamespace } from '../../harness/index.js';
import { adversary, type Adversary } from './env.js';
import { runFuzz, summary } from './fuzz.js';

const ns = testNamespace('adv-fuzz');
let env: Adversary;
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20_240_613);

beforeAll(async () => {
  env = await adversary(ns.name, ['podTerminated', 'evacuation', 'jobDeleted', 'sweep', 'orphanSweep', 'defrag']);
}, 180_000);
afterAll(async () => env?.stop());

it(`${RUNS} mutated ApiServerSource events (seed ${SEED}) write nothing the policy would not, with preconditions, and never answer 5xx`, async () => {
  const f = await runFuzz(env, { seed: SEED, runs: RUNS });
  console.log(`[adversary] fuzz: ${summary(f)}`);
  expect(f.events).toBe(RUNS);
  const shown = [...f.outsideExamples, ...f.wrongWrites].slice(0, 20);
  expect(shown, `${f.wrongWrites.length} wrong writes (${f.outsidePolicy} outside the policy), first 20:\n${shown.join('\n')}`).toEqual([]);
  // A 5xx or no answer names the process behind it: whether it is still alive, its stderr and last log lines.
  const said = Object.entries(env.fn).map(([t, p]) => `${t}: rss ${p.rss()} B\n${p.stderr().slice(-1500)}\n${p.lines().slice(-5).join('\n')}`);
  expect(f.fiveXX, `${JSON.stringify(f.statuses)}\n${f.fiveXX ? said.join('\n---\n') : ''}`).toBe(0);
}, 900_000);
