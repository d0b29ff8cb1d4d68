import { describe, expect, it } from 'vitest';
import { ObjectRuleSchema, type ObjectRule } from '../../policy/objects-schema.js';
import { decideObjects } from './decide.js';
import { diffObjectPlans } from './diff.js';
import { emptyContext, type StoredObject } from './model.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();
const rule = (r: Record<string, unknown>): ObjectRule => ObjectRuleSchema.parse({ name: 'jobs', kind: 'Job', minAge: '1h', ...r });

function job(name: string, since: number, ns = 'ml'): StoredObject {
  return {
    kind: 'Job',
    apiVersion: 'batch/v1',
    namespace: ns,
    name,
    uid: `u-${name}`,
    resourceVersion: '1',
    conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: ago(since) }],
  };
}

const jobs = [job('old', 3 * 3600), job('mid', 5400), job('young', 600), job('other', 3 * 3600, 'web')];
const considered = new Map([['Job' as const, jobs.length]]);
const plan = (rules: ObjectRule[]) => decideObjects(rules, jobs, emptyContext(), NOW);
const diff = (before: ObjectRule[], after: ObjectRule[]) => diffObjectPlans(plan(before), plan(after), considered);
const by = (d: ReturnType<typeof diff>) => Object.fromEntries(d.changes.map((c) => [c.name, [c.change, c.newlyDeleted]]));

describe('diffObjectPlans', () => {
  it('the same rules change nothing, and the counts still say what each side selects', () => {
    const d = diff([rule({ mode: 'delete' })], [rule({ mode: 'delete' })]);
    expect(d.changes).toEqual([]);
    expect(d.counts).toEqual([{ kind: 'Job', considered: 4, before: 3, after: 3, new: 0, released: 0, changed: 0, newlyDeleted: 0 }]);
  });

  it('a shorter minAge under a delete rule newly selects and newly deletes; what was not yet eligible says when', () => {
    const d = diff([rule({ mode: 'delete', minAge: '2h' })], [rule({ mode: 'delete', minAge: '1h' })]);
    expect(by(d)).toEqual({ mid: ['new', true] });
    expect(d.changes[0]!.before).toEqual({ status: 'not-yet', rule: 'jobs', at: NOW - 5400_000 + 2 * 3600_000 });
    expect(d.counts[0]).toMatchObject({ new: 1, newlyDeleted: 1 });
  });

  it('a new report rule selects but deletes nothing: new, not newly deleted', () => {
    const d = diff([], [rule({})]);
    expect(by(d)).toEqual({ old: ['new', false], mid: ['new', false], other: ['new', false] });
    expect(d.counts[0]).toMatchObject({ before: 0, after: 3, new: 3, newlyDeleted: 0 });
  });

  it('a report rule turned to delete is a change that newly deletes; delete turned to report is a change that does not', () => {
    const up = diff([rule({})], [rule({ mode: 'delete' })]);
    expect(by(up)).toEqual({ old: ['changed', true], mid: ['changed', true], other: ['changed', true] });
    expect(up.counts[0]).toMatchObject({ changed: 3, newlyDeleted: 3, new: 0 });
    const down = diff([rule({ mode: 'delete' })], [rule({})]);
    expect(by(down)).toEqual({ old: ['changed', false], mid: ['changed', false], other: ['changed', false] });
  });

  it('a namespace left out releases its objects, with the new side as unselected', () => {
    const d = diff([rule({ mode: 'delete' })], [rule({ mode: 'delete', namespaces: { exclude: ['web'] } })]);
    expect(by(d)).toEqual({ other: ['released', false] });
    expect(d.changes[0]!.after).toEqual({ status: 'unselected' });
    expect(d.counts[0]).toMatchObject({ before: 3, after: 2, released: 1 });
  });

  it('a kind only one side names is counted from what was listed, its objects new', () => {
    const d = diffObjectPlans(plan([]), plan([rule({ mode: 'delete' })]), new Map([['Job', 4]]));
    expect(d.counts).toEqual([{ kind: 'Job', considered: 4, before: 0, after: 3, new: 3, released: 0, changed: 0, newlyDeleted: 3 }]);
  });
});
