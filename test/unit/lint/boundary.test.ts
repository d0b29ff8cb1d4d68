// The boundaries of eslint.config.js, checked against code that breaks them: a rule that
// silently stopped matching (a moved folder, a renamed method) would fail here.
import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${file}` });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('the pure core stays pure', () => {
  it.each([
    ['imports the Kubernetes client', "import { CoreV1Api } from '@kubernetes/client-node';\nexport const x = CoreV1Api;", 'no-restricted-imports'],
    ['imports the logger', "import { createLogger } from '../log.js';\nexport const x = createLogger;", 'no-restricted-imports'],
    ['imports the runtime', "import { startRuntime } from '../runtime/runtime.js';\nexport const x = startRuntime;", 'no-restricted-imports'],
    ["imports a family's I/O", "import { tick } from '../io/tick.js';\nexport const x = tick;", 'no-restricted-imports'],
    ['records a metric', "import { observeRemoval } from '../metrics/observe.js';\nexport const x = observeRemoval;", 'no-restricted-imports'],
    ['imports a host (the CLI)', "import { runAsync } from '../hosts/cli/main.js';\nexport const x = runAsync;", 'no-restricted-imports'],
    ['imports the standalone host', "import { dispatch } from '../hosts/standalone/dispatch.js';\nexport const x = dispatch;", 'no-restricted-imports'],
    ['imports the OpenTelemetry SDK', "import { MeterProvider } from '@opentelemetry/sdk-metrics';\nexport const x = MeterProvider;", 'no-restricted-imports'],
    ['reads the clock', 'export const x = () => Date.now();', 'no-restricted-properties'],
    ['makes a Date of now', 'export const x = () => new Date();', 'no-restricted-syntax'],
    ['reads the environment', 'export const x = () => process.env.X;', 'no-restricted-globals'],
  ])('a module of shared/plan that %s fails lint', async (_what, code, rule) => {
    expect((await problems('shared/selection/boundary-probe.ts', code)).join('\n')).toContain(rule);
  });

  it('a family core module (shared/<family>/core/) is held to the same rule', async () => {
    expect((await problems('shared/defrag/core/boundary-probe.ts', 'export const x = () => Date.now();')).join('\n')).toContain('no-restricted-properties');
  });

  it("a family room's core (shared/objects/reports/core/) is held to the same rule: pod cleanup's reports' builder, a pure core, it may read; pod cleanup's I/O and entry it may not", async () => {
    const probe = 'shared/objects/reports/core/boundary-probe.ts';
    expect((await problems(probe, 'export const x = () => Date.now();')).join('\n')).toContain('no-restricted-properties');
    expect(await problems(probe, "import { reportOf } from '../../../cleanup/reports/core/build.js';\nexport const x = reportOf;")).toEqual([]);
    for (const module of ['../../../cleanup/reports/index.js', '../../../cleanup/handle.js', '../../../cleanup/due/core/due.js'])
      expect((await problems(probe, `import * as m from '${module}';\nexport const x = m;`)).join('\n'), module).toContain('no-restricted-imports');
  });

  it("a host's core (shared/hosts/<host>/core/) is held to the same rule", async () => {
    expect((await problems('shared/hosts/standalone/core/boundary-probe.ts', 'export const x = () => Date.now();')).join('\n')).toContain(
      'no-restricted-properties',
    );
  });

  it('the same code is fine outside the core (the runtime reads the clock)', async () => {
    expect(await problems('shared/runtime/boundary-probe.ts', 'export const x = () => Date.now();')).toEqual([]);
  });
});

describe('the hosts stand apart from the library', () => {
  it.each([
    ['shared/kube/boundary-probe.ts', "import { FencedError } from '../hosts/standalone/fence.js';\nexport const x = FencedError;"],
    ['shared/serve/boundary-probe.ts', "import { startBridge } from '../hosts/bridge/index.js';\nexport const x = startBridge;"],
    ['functions/boundary-probe.ts', "import { runAsync } from '../shared/hosts/cli/main.js';\nexport const x = runAsync;"],
  ])('%s importing a host fails lint', async (file, code) => {
    expect((await problems(file, code)).join('\n')).toContain('shared/hosts holds the programs');
  });

  it('a host may import another host and the library', async () => {
    expect(
      await problems(
        'shared/hosts/cli/boundary-probe.ts',
        "import { startBridge } from '../bridge/index.js';\nimport { createLogger } from '../../log.js';\nexport const x = [startBridge, createLogger];",
      ),
    ).toEqual([]);
  });
});

describe('only the writer changes a cluster', () => {
  it.each([
    ['deletes a pod', 'export const x = (core: { deleteNamespacedPod(a: object): void }) => core.deleteNamespacedPod({});'],
    ['patches a node', 'export const x = (core: { patchNode(a: object): void }) => core.patchNode({});'],
    ['creates a custom object', 'export const x = (c: { createNamespacedCustomObject(a: object): void }) => c.createNamespacedCustomObject({});'],
  ])('a function that %s directly fails lint', async (_what, code) => {
    expect((await problems('functions/boundary-probe.ts', code)).join('\n')).toContain('goes through the writer');
  });

  it('shared/kube (the writer) may', async () => {
    expect(
      await problems('shared/kube/boundary-probe.ts', 'export const x = (core: { deleteNamespacedPod(a: object): void }) => core.deleteNamespacedPod({});'),
    ).toEqual([]);
  });

  it('a call on the writer is the way, and passes', async () => {
    expect(await problems('shared/defrag/io/boundary-probe.ts', 'export const x = (writer: { patchNode(a: object): void }) => writer.patchNode({});')).toEqual(
      [],
    );
  });

  it('a Map.delete is not a cluster write', async () => {
    expect(await problems('functions/boundary-probe.ts', 'export const x = (m: Map<string, number>) => m.delete("a");')).toEqual([]);
  });
});

describe('only the writer settles a removal ticket (admission is part of the write)', () => {
  const settles = (from: string) => `import { settleRemoval } from '${from}';\nexport const x = settleRemoval;`;
  it.each([
    ['shared/cleanup/io/boundary-probe.ts', '../../kube/admission.js'],
    ['shared/hosts/cli/boundary-probe.ts', '../../kube/admission.js'],
    ['functions/boundary-probe.ts', '../shared/kube/admission.js'],
  ])('%s settling one fails lint', async (file, from) => {
    expect((await problems(file, settles(from))).join('\n')).toContain('the writer settles every removal ticket');
  });

  it("calling the ticket class's own settle fails lint too", async () => {
    const code = "import { RemovalTicket } from '../../kube/admission.js';\nexport const x = (t: RemovalTicket) => RemovalTicket.settle(t, true);";
    expect((await problems('shared/defrag/io/boundary-probe.ts', code)).join('\n')).toContain('the writer settles every removal ticket');
  });

  it('the writer beside the port may; a family gives back what it did not send, and names the ticket type', async () => {
    expect(await problems('shared/kube/boundary-probe.ts', settles('./admission.js'))).toEqual([]);
    const gives = "import { unsent, type RemovalTicket } from '../../kube/admission.js';\nexport const x = (t: RemovalTicket) => unsent(t);";
    expect(await problems('shared/objects/io/boundary-probe.ts', gives)).toEqual([]);
  });

  it('a host still may not be imported from shared/kube', async () => {
    expect(
      (await problems('shared/kube/boundary-probe.ts', "import { FencedError } from '../hosts/standalone/fence.js';\nexport const x = FencedError;")).join(
        '\n',
      ),
    ).toContain('shared/hosts holds the programs');
  });
});

describe('rooms import downward only: no import cycle, type imports included', () => {
  it('metrics/observe.ts naming a type of the target contract again fails lint (the six-file circle through the runtime)', async () => {
    const observe = readFileSync(`${ROOT}shared/metrics/observe.ts`, 'utf8');
    const probe = `import type { TargetSpec } from '../serve/target.js';\nexport type Probe = TargetSpec;\n${observe}`;
    const found = (await problems('shared/metrics/observe.ts', probe)).join('\n');
    expect(found).toContain('kube-tidy/no-import-cycle');
    expect(found).toMatch(/shared\/metrics\/observe\.ts -> shared\/serve\/target\.ts -> shared\/runtime\/runtime\.ts -> .* -> shared\/metrics\/observe\.ts/);
  });

  it('a dynamic import() closes a cycle too', async () => {
    const found = (
      await problems(
        'shared/model/answer.ts',
        "export const later = () => import('../serve/http/functions-framework.js');\nexport interface Answer { outcome: string }",
      )
    ).join('\n');
    expect(found).toContain('kube-tidy/no-import-cycle');
  });

  it('the modules as they are have none', async () => {
    expect(await problems('shared/metrics/observe.ts', readFileSync(`${ROOT}shared/metrics/observe.ts`, 'utf8'))).toEqual([]);
  });
});

describe('rooms import downward only: the floors of infra/lint/floors.js', () => {
  const RULE = 'kube-tidy/floor-order';

  it.each([
    ['a value import', 'shared/kube/boundary-probe.ts', "import { ANNOTATIONS } from '../evacuation/core/annotations.js';\nexport const x = ANNOTATIONS;"],
    ['a type-only import', 'shared/metrics/boundary-probe.ts', "import type { OutEvent } from '../notify/types.js';\nexport type X = OutEvent;"],
    ['a re-export', 'shared/kube/boundary-probe.ts', "export { MARK } from '../defrag/core/marks.js';"],
    ['a dynamic import()', 'shared/kube/boundary-probe.ts', "export const later = () => import('../runtime/runtime.js');"],
    ["an import('...') type", 'shared/model/boundary-probe.ts', "export type X = import('../serve/target.js').TargetSpec;"],
    [
      'a function reaching a host-side program',
      'functions/boundary-probe.ts',
      "import { setupTargets } from '../shared/hosts/server/setup.js';\nexport const x = setupTargets;",
    ],
  ])('%s that runs up a floor fails lint, naming both rooms and floors', async (_what, file, code) => {
    const found = (await problems(file, code)).filter((p) => p.startsWith(RULE));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^kube-tidy\/floor-order: (shared\/\S+|functions) \(floor \d+, [a-z ]+\) imports \S+ \(floor \d+, [a-z ]+\)/);
  });

  it('the message says which rooms and floors (kube/ reading a family core, as kube/names.ts did)', async () => {
    const found = await problems('shared/kube/boundary-probe.ts', "import { MARK } from '../defrag/core/marks.js';\nexport const x = MARK;");
    expect(found.join('\n')).toContain('shared/kube (floor 7, kube) imports shared/defrag/core (floor 10, family cores) from shared/defrag/core/marks.ts');
  });

  it('downward imports, and imports within one floor, pass', async () => {
    const down =
      "import { MARK } from '../model/keys.js';\nimport type { Answer } from '../model/answer.js';\nimport { MetricsRecorder } from '../metrics/recorder.js';\nexport const x = [MARK, MetricsRecorder] as const;\nexport type A = Answer;";
    expect(await problems('shared/kube/boundary-probe.ts', down)).toEqual([]);
    const sameFloor = "import { readState } from '../../evacuation/core/annotations.js';\nexport const x = readState;";
    expect(await problems('shared/defrag/core/boundary-probe.ts', sameFloor)).toEqual([]);
  });

  it("a host's core is the host's floor, not a pure core's: it may import the library", async () => {
    expect(await problems('shared/hosts/standalone/core/boundary-probe.ts', "import { MARK } from '../../../model/keys.js';\nexport const x = MARK;")).toEqual(
      [],
    );
  });

  // The pure cores have an order of their own: the policy's terms, then what a policy is composed
  // of (the strategies, the evictor), then the composed document, then what reads it (the planner).
  // On one floor, the evictor read selection/snapshot.ts and nothing said so.
  it.each([
    [
      'the evictor reading the planner (as gate.ts read selection/snapshot.ts)',
      'shared/evictor/boundary-probe.ts',
      "import type { Snapshot } from '../selection/snapshot.js';\nexport type X = Snapshot;",
    ],
    [
      'the evictor reading the composed policy',
      'shared/evictor/boundary-probe.ts',
      "import type { Policy } from '../policy/policy.js';\nexport type X = Policy;",
    ],
    [
      'a strategy reading the policy loader',
      'shared/strategies/boundary-probe.ts',
      "import { loadPolicy } from '../policy/load.js';\nexport const x = loadPolicy;",
    ],
    [
      'a part of the policy reading the whole (brakes-schema.ts, policy.ts)',
      'shared/policy/brakes-schema.ts',
      "import type { Policy } from './policy.js';\nexport type X = Policy;",
    ],
    ['a policy term reading a strategy', 'shared/policy/common.ts', "import { STRATEGIES } from '../strategies/registry.js';\nexport const x = STRATEGIES;"],
    ['the composed policy reading the planner', 'shared/policy/policy.ts', "import type { Plan } from '../selection/decision.js';\nexport type X = Plan;"],
    [
      'the bridge formats reading a policy term',
      'shared/cloudevents/boundary-probe.ts',
      "import { parseGoDuration } from '../policy/duration.js';\nexport const x = parseGoDuration;",
    ],
  ])('%s runs up a floor and fails lint', async (_what, file, code) => {
    expect((await problems(file, code)).filter((p) => p.startsWith(RULE))).toHaveLength(1);
  });

  it('the pure cores read downward: the planner the evictor and the policy, the policy the strategies and the evictor, those the terms', async () => {
    const reads: [string, string][] = [
      [
        'shared/selection/boundary-probe.ts',
        "import { compileGate } from '../evictor/gate.js';\nimport type { Policy } from '../policy/policy.js';\nexport const x = compileGate;\nexport type P = Policy;",
      ],
      [
        'shared/policy/policy.ts',
        "import { STRATEGIES } from '../strategies/registry.js';\nimport type { EvictionLimits } from '../evictor/limits.js';\nexport const x = STRATEGIES;\nexport type L = EvictionLimits;",
      ],
      ['shared/evictor/boundary-probe.ts', "import { parseGoDuration } from '../policy/duration.js';\nexport const x = parseGoDuration;"],
    ];
    for (const [file, code] of reads)
      expect(
        (await problems(file, code)).filter((p) => p.startsWith(RULE)),
        file,
      ).toEqual([]);
  });

  it("the evictor's gate and checks as they are stand on their floor (the snapshot's index is the evictor's, a leaf it reads)", async () => {
    for (const file of ['shared/evictor/gate.ts', 'shared/evictor/checks.ts'])
      expect(
        (await problems(file, readFileSync(`${ROOT}${file}`, 'utf8'))).filter((p) => p.startsWith(RULE)),
        file,
      ).toEqual([]);
  });

  it('a module of shared/ in no room of floors.js fails lint', async () => {
    expect((await problems('shared/newroom/boundary-probe.ts', 'export const x = 1;')).join('\n')).toContain('is in no room of infra/lint/floors.js');
    // policy/ stands on several floors, its files named: a new one is in no room until given one.
    expect((await problems('shared/policy/boundary-probe.ts', 'export const x = 1;')).join('\n')).toContain('is in no room of infra/lint/floors.js');
  });
});
