import { describe, expect, it } from 'vitest';
import { decideLease, releasedLease } from './election.js';
import { nextRun, parseSchedule } from './schedule.js';
import { selectorString } from './selector.js';

const T = Date.parse('2026-01-01T00:00:00Z');
const held = (holder: string | null, transitions = 0) => ({
  holderIdentity: holder,
  leaseDurationSeconds: 10,
  leaseTransitions: transitions,
  renewTime: '2026-01-01T00:00:00.000000Z',
});

describe('lease decisions (client-go leaderelection rules)', () => {
  it.each([
    { sentence: 'no Lease: create it, holding it', lease: undefined, observedAt: T, now: T, want: { action: 'create' } },
    { sentence: 'my own Lease: renew it', lease: held('me'), observedAt: T, now: T + 9_000, want: { action: 'renew' } },
    {
      sentence: "another's Lease seen changing 9 s ago (10 s duration): wait",
      lease: held('other'),
      observedAt: T,
      now: T + 9_000,
      want: { action: 'wait', holder: 'other', expiresAt: T + 10_000 },
    },
    {
      sentence: "another's Lease unchanged for 10 s: take it over, one more transition",
      lease: held('other', 3),
      observedAt: T,
      now: T + 10_000,
      want: { action: 'acquire', from: 'other', spec: { holderIdentity: 'me', leaseTransitions: 4 } },
    },
    {
      sentence: 'a released Lease (no holder for 1 s, as a release writes it): taken once that second has passed',
      lease: { ...held(null, 1), leaseDurationSeconds: 1 },
      observedAt: T,
      now: T + 1_000,
      want: { action: 'acquire', from: '', spec: { holderIdentity: 'me', leaseTransitions: 2 } },
    },
    // Issue 33: a Lease that cannot be read as a claim is not free at once.
    {
      sentence: 'a Lease naming no holder that states 10 s (a hand edit, a bad restore, not a release): wait 10 s from when it was seen',
      lease: held(null, 1),
      observedAt: T,
      now: T + 9_000,
      want: { action: 'wait', holder: '', expiresAt: T + 10_000 },
    },
    {
      sentence: 'a Lease naming no holder and stating no duration: wait our full duration',
      lease: { holderIdentity: null, renewTime: null, leaseTransitions: 1 },
      observedAt: T,
      now: T + 9_999,
      want: { action: 'wait', holder: '', expiresAt: T + 10_000 },
    },
    {
      sentence: 'a Lease naming no holder, seen while the last claim seen (of other) lasts longer: wait for that claim',
      lease: held(null, 1),
      observedAt: T,
      now: T + 10_000,
      lastClaim: { holder: 'other', expiresAt: T + 12_000 },
      want: { action: 'wait', holder: '', expiresAt: T + 12_000 },
    },
    {
      sentence:
        "a release (no holder, 1 s) seen while the last claim seen lasts longer: taken once its second has passed, the holder's own word (client-go takes it at once)",
      lease: { ...held(null, 1), leaseDurationSeconds: 1 },
      observedAt: T,
      now: T + 1_000,
      lastClaim: { holder: 'other', expiresAt: T + 120_000 },
      want: { action: 'acquire', from: '' },
    },
    {
      sentence: 'deleted while another held it (its claim seen lasting 4 s more): wait, do not create',
      lease: undefined,
      observedAt: T,
      now: T + 6_000,
      lastClaim: { holder: 'other', expiresAt: T + 10_000 },
      want: { action: 'wait', holder: 'other', expiresAt: T + 10_000 },
    },
    {
      sentence: 'deleted, and the last claim seen could have ended: create it',
      lease: undefined,
      observedAt: T,
      now: T + 10_000,
      lastClaim: { holder: 'other', expiresAt: T + 10_000 },
      want: { action: 'create' },
    },
    {
      sentence: 'the leader finds its Lease deleted: it creates it again at once (the create is what the API server orders)',
      lease: undefined,
      observedAt: T,
      now: T + 1,
      leading: true,
      want: { action: 'create' },
    },
    {
      sentence: 'the leader finds its Lease naming no holder: it takes it back at once, by an update at the resourceVersion read',
      lease: held(null, 1),
      observedAt: T,
      now: T + 1,
      leading: true,
      want: { action: 'acquire', from: '', spec: { holderIdentity: 'me' } },
    },
    {
      sentence: "another's Lease with a renewTime long past and no duration: its claim is timed from when it was seen, for our full duration",
      lease: { holderIdentity: 'other', renewTime: '2000-01-01T00:00:00.000000Z', leaseTransitions: 0 },
      observedAt: T,
      now: T + 9_999,
      want: { action: 'wait', holder: 'other', expiresAt: T + 10_000 },
    },
  ])('$sentence', ({ lease, observedAt, now, want, ...rest }) => {
    expect(decideLease({ lease, observedAt, me: 'me', now, leaseDurationSeconds: 10, ...rest })).toMatchObject(want);
  });

  it('writes whole seconds, as client-go (int(LeaseDuration / time.Second)): 15.5 s is 15, on create and renew', () => {
    const created = decideLease({ lease: undefined, observedAt: T, me: 'me', now: T, leaseDurationSeconds: 15.5 });
    expect(created.action === 'create' && created.spec.leaseDurationSeconds).toBe(15);
    const renewed = decideLease({ lease: held('me'), observedAt: T, me: 'me', now: T, leaseDurationSeconds: 15.5 });
    expect(renewed.action === 'renew' && renewed.spec.leaseDurationSeconds).toBe(15);
  });

  it('writes MicroTime-shaped times and gives the Lease up with no holder', () => {
    const step = decideLease({ lease: undefined, observedAt: T, me: 'me', now: T, leaseDurationSeconds: 10 });
    expect(step.action === 'create' && step.spec.renewTime).toBe('2026-01-01T00:00:00.000000Z');
    expect(releasedLease(held('me'), T)).toMatchObject({ holderIdentity: null, leaseDurationSeconds: 1 });
  });
});

describe('schedules', () => {
  it.each([
    { spec: '*/15 * * * *', after: '2026-01-01T00:07:30Z', next: '2026-01-01T00:15:00Z' },
    { spec: '* * * * *', after: '2026-01-01T00:00:00Z', next: '2026-01-01T00:01:00Z' },
    { spec: '0 3 * * 1', after: '2026-01-01T00:00:00Z', next: '2026-01-05T03:00:00Z' },
    { spec: '30 2 1,15 * *', after: '2026-01-02T00:00:00Z', next: '2026-01-15T02:30:00Z' },
    { spec: '@every 30s', after: '2026-01-01T00:00:00Z', next: '2026-01-01T00:00:30Z' },
  ])('$spec after $after is $next', ({ spec, after, next }) => {
    expect(new Date(nextRun(parseSchedule(spec), Date.parse(after))).toISOString()).toBe(new Date(next).toISOString());
  });
  it.each(['* * * *', '61 * * * *', '*/0 * * * *', 'every 5s'])('refuses "%s"', (spec) => expect(() => parseSchedule(spec)).toThrow());
});

describe('label selectors', () => {
  it('turns a LabelSelector into the string a watch takes', () => {
    expect(
      selectorString({
        matchLabels: { team: 'ml' },
        matchExpressions: [
          { key: 'kube-tidy.dev/ignore', operator: 'DoesNotExist' },
          { key: 'q', operator: 'Exists' },
          { key: 'env', operator: 'NotIn', values: ['a', 'b'] },
        ],
      }),
    ).toBe('team=ml,!kube-tidy.dev/ignore,q,env notin (a,b)');
    expect(selectorString(undefined)).toBe('');
  });
});
