import { describe, expect, it } from 'vitest';
import { compileLabelSelector } from '../../policy/label-selector.js';
import type { ObjectDecision } from '../../objects/core/model.js';
import type { ObjectsPassSummary } from '../../objects/index.js';
import { ObjectRuleSchema } from '../../policy/objects-schema.js';
import { diffObjectPlans } from '../../objects/core/diff.js';
import { printDiff, EXIT_GATE } from './diff-output.js';
import { narrowRules } from './live-objects.js';
import { inText, objectResultText, printObjects } from './objects-output.js';

// The objects' section of a live plan or run and of a diff: its JSON lines and tables, the
// gate per kind, and how --label-selector narrows the rules.

const NOW = Date.parse('2026-11-28T12:00:00Z');
const rules = [
  ObjectRuleSchema.parse({ name: 'jobs-gone', kind: 'Job', minAge: '1h', mode: 'delete' }),
  ObjectRuleSchema.parse({ name: 'jobs-seen', kind: 'Job', minAge: '1h' }),
];
const id = (name: string) => ({ kind: 'Job' as const, namespace: 'ml', name, uid: `u-${name}`, resourceVersion: '1' });
const decision = (name: string, rule: string, mode: 'report' | 'delete'): ObjectDecision => ({
  ...id(name),
  rule,
  mode,
  condition: 'Complete=True',
  since: NOW - 7200_000,
  reason: `${rule}: Complete=True for 2h (minAge 1h)`,
  target: { apiVersion: 'batch/v1', kind: 'Job', namespace: 'ml', name, uid: `u-${name}` },
});
const summary = (dryRun: boolean): ObjectsPassSummary => ({
  rules: 2,
  considered: 5,
  results: [
    { decision: decision('a', 'jobs-gone', 'delete'), outcome: 'deleted', dryRun },
    { decision: decision('b', 'jobs-seen', 'report'), outcome: 'reported', dryRun },
  ],
  kept: [{ ...id('c'), rule: 'jobs-gone', reason: 'keepLast 1: among the newest of CronJob nightly' }],
  eligible: [{ ...id('d'), rule: 'jobs-gone', at: NOW + 40 * 60_000 }],
  notServed: [],
  failures: { transient: 0, refused: 0 },
});

function capture() {
  const io = { stdout: '', stderr: '', out: (s: string) => void (io.stdout += s), err: (s: string) => void (io.stderr += s) };
  return io;
}

describe('printObjects', () => {
  it('JSON lines: one typed line per result, kept object and not-yet-eligible object', () => {
    const io = capture();
    printObjects(summary(true), rules, 'json', NOW, io);
    const lines = io.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      {
        type: 'object',
        kind: 'Job',
        namespace: 'ml',
        name: 'a',
        uid: 'u-a',
        rule: 'jobs-gone',
        mode: 'delete',
        reason: expect.any(String),
        outcome: 'deleted',
        dryRun: true,
      },
      {
        type: 'object',
        kind: 'Job',
        namespace: 'ml',
        name: 'b',
        uid: 'u-b',
        rule: 'jobs-seen',
        mode: 'report',
        reason: expect.any(String),
        outcome: 'reported',
        dryRun: true,
      },
      {
        type: 'object-kept',
        kind: 'Job',
        namespace: 'ml',
        name: 'c',
        uid: 'u-c',
        rule: 'jobs-gone',
        mode: 'delete',
        reason: expect.stringMatching(/keepLast/),
      },
      { type: 'object-eligible', kind: 'Job', namespace: 'ml', name: 'd', uid: 'u-d', rule: 'jobs-gone', mode: 'delete', at: '2026-11-28T12:40:00.000Z' },
    ]);
    expect(io.stderr).toBe('objects: 2 rules, 5 objects listed: 2 selected (1 would be deleted, 1 reported), 1 kept, 1 not yet eligible\n');
  });

  it('a table in words: would delete in a plan, deleted in a run, reported, kept, not yet', () => {
    for (const dryRun of [true, false]) {
      const io = capture();
      printObjects(summary(dryRun), rules, 'table', NOW, io);
      const rows = io.stdout.trim().split('\n');
      expect(rows[0]).toMatch(/^KIND +OBJECT +RULE +MODE +RESULT +REASON$/);
      expect(rows[1]).toMatch(new RegExp(`^Job +ml/a +jobs-gone +delete +${dryRun ? 'would delete' : 'deleted'} +jobs-gone: Complete=True for 2h`));
      expect(rows[2]).toMatch(/^Job +ml\/b +jobs-seen +report +reported \(report rule: nothing removed\)/);
      expect(rows[3]).toMatch(/^Job +ml\/c +jobs-gone +delete +kept +keepLast 1/);
      expect(rows[4]).toMatch(/^Job +ml\/d +jobs-gone +delete +not yet +eligible at 2026-11-28T12:40:00.000Z \(in 40m\)$/);
    }
  });

  it('prints nothing at all for a policy without object rules, one line when its rules match nothing', () => {
    const none = capture();
    printObjects({ ...summary(true), rules: 0, results: [], kept: [], eligible: [] }, [], 'table', NOW, none);
    expect(none.stdout + none.stderr).toBe('');
    const empty = capture();
    printObjects({ ...summary(true), results: [], kept: [], eligible: [], notServed: ['Workload'] }, rules, 'table', NOW, empty);
    expect(empty.stdout).toBe('\nnothing to do: the 2 kubeTidy.objects and ttl rules match no object\n');
    expect(empty.stderr).toMatch(/does not serve Workload/);
  });

  it('says a Workload decision removes its owner', () => {
    const d = {
      ...decision('w', 'jobs-gone', 'delete'),
      kind: 'Workload' as const,
      target: { apiVersion: 'batch/v1', kind: 'Job', namespace: 'ml', name: 'train', uid: 'u-train' },
    };
    const io = capture();
    printObjects({ ...summary(true), results: [{ decision: d, outcome: 'deleted', dryRun: true }], kept: [], eligible: [] }, rules, 'json', NOW, io);
    expect(JSON.parse(io.stdout)).toMatchObject({ kind: 'Workload', removes: { kind: 'Job', name: 'train', uid: 'u-train' } });
  });

  it('words for each outcome and for how far off', () => {
    expect(objectResultText({ outcome: 'deferred', dryRun: false, message: 'jobs-rate 1 per 1h' })).toBe('deferred: jobs-rate 1 per 1h');
    expect(objectResultText({ outcome: 'deferred', dryRun: false, message: 'deferred: a rate is spent' })).toBe('deferred: a rate is spent');
    expect(objectResultText({ outcome: 'stale', dryRun: false })).toBe('changed since read, left for next time');
    expect([inText(0), inText(59_000), inText(125 * 60_000), inText(2 * 86_400_000)]).toEqual(['in 0m', 'in 1m', 'in 2h5m', 'in 2d']);
  });
});

describe('narrowRules (--label-selector over the object rules)', () => {
  const labelled = ObjectRuleSchema.parse({ name: 'r', kind: 'Job', minAge: '1h', labelSelector: { matchLabels: { team: 'ml' } } });
  const matches = (selector: string, labels: Record<string, string>) => compileLabelSelector(narrowRules([labelled], selector)[0]!.labelSelector)(labels);

  it("selects only what both the rule's selector and the command's match", () => {
    expect(matches('app=train', { team: 'ml', app: 'train' })).toBe(true);
    expect(matches('app=train', { team: 'web', app: 'train' })).toBe(false);
    expect(matches('app=train', { team: 'ml', app: 'serve' })).toBe(false);
    expect(matches('team=web', { team: 'ml' }), 'a key both name: both must hold, so nothing').toBe(false);
    expect(matches('!spot', { team: 'ml', spot: 'x' })).toBe(false);
  });

  it('leaves the rules as they are without a selector', () => {
    expect(narrowRules([labelled], undefined)).toEqual([labelled]);
  });
});

describe('printDiff with objects: the gate per kind over what is newly deleted', () => {
  const none = { changes: [], counts: [], totals: { before: 0, after: 0, new: 0, released: 0, changed: 0 } };
  const plan = (decisions: ObjectDecision[]) => ({ decisions, kept: [], eligible: [] });
  const objects = {
    ...diffObjectPlans(
      plan([decision('a', 'jobs-seen', 'report')]),
      plan([decision('a', 'jobs-gone', 'delete'), decision('b', 'jobs-seen', 'report')]),
      new Map([['Job', 5]]),
    ),
    notServed: [],
  };
  const print = (format: 'json' | 'table', gate?: { max: number } | { percent: number }) => {
    const io = capture();
    const code = printDiff({ diff: none, podsSeen: 10, seenWhere: 'listed', against: 'old.yaml', format, objects, ...(gate ? { gate } : {}) }, io);
    return { code, ...io };
  };

  it('JSON: typed object lines before the pods total, which stays last; a change to delete counts, a new report does not', () => {
    const r = print('json', { max: 1 });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.type)).toEqual(['object-new', 'object-changed', 'object-count', 'total']);
    expect(lines[0]).toMatchObject({ name: 'b', newlyDeleted: false, after: { status: 'selected', mode: 'report' } });
    expect(lines[1]).toMatchObject({ name: 'a', newlyDeleted: true, before: { mode: 'report' }, after: { mode: 'delete' } });
    expect(lines[2]).toEqual({
      type: 'object-count',
      kind: 'Job',
      considered: 5,
      before: 1,
      after: 2,
      new: 1,
      released: 0,
      changed: 1,
      newlyDeleted: 1,
      maxNew: '1',
      exceeded: false,
    });
    expect(r.code).toBe(0);
  });

  it('exit 3 when one kind newly deletes more than --max-new, however few pods; a percentage is of that kind listed', () => {
    const over = print('table', { max: 0 });
    expect(over.code).toBe(EXIT_GATE);
    expect(over.stderr).toMatch(/newly deletes 1 Job objects, more than --max-new 0 allows \(exit 3\)/);
    expect(over.stdout).toMatch(/changed +Job +ml\/a +report \(jobs-seen\) +delete \(jobs-gone\)/);
    expect(over.stdout).toMatch(/KIND +LISTED +BEFORE +AFTER +NEW +RELEASED +CHANGED +NEWLY DELETED\nJob +5 +1 +2 +1 +0 +1 +1/);
    expect(print('json', { percent: 20 }).code, '1 of 5 Jobs is 20%: at the threshold').toBe(0);
    expect(print('json', { percent: 19.99 }).code).toBe(EXIT_GATE);
  });
});
