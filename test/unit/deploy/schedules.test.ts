// Every declared schedule reaches its function as a tick the function takes, on every path:
// Knative's PingSource sends a CloudEvent (dev.knative.sources.ping), Cloud Scheduler a plain
// POST unless the schedule is declared `as: ping` (then a CloudEvent in binary mode). A
// function that reads a plain POST as a pod (podTerminated's due-list tick) must get the
// CloudEvent, or its tick would be taken for a bad pod.
import { describe, expect, it } from 'vitest';
import { TARGETS, isTarget } from '../../../functions/index.js';
import { readDeclaration } from '../../../infra/declaration/declaration.js';
import { renderGcp } from '../../../infra/gcp/render.js';
import { decodeEvent, isEventRequest } from '../../../shared/cloudevents/index.js';
import type { TargetSpec } from '../../../shared/serve/target.js';

const decl = readDeclaration();
const gcp = renderGcp(decl);

/** What `target` makes of a request as the resolver decodes it: a tick, or why not. */
async function asTick(target: string, headers: Record<string, string>, body: unknown): Promise<string> {
  if (!isTarget(target)) return `${target} is not a target`;
  const spec = (await TARGETS[target]()) as TargetSpec<unknown>;
  const req = { headers, body };
  if (!isEventRequest(req) && spec.accepts.plain === 'tick') return 'tick';
  try {
    const e = decodeEvent(req);
    if (e.type !== 'tick') return `decoded as ${e.type}`;
    return spec.accepts.ticks ? 'tick' : 'ticks not accepted';
  } catch (e) {
    return `refused: ${(e as Error).message}`;
  }
}

describe('declared schedules', () => {
  const scheduled = Object.entries(decl.functions).flatMap(([target, f]) =>
    f.events.flatMap((e, i) => ('schedule' in e ? [{ target, i, as: e.schedule.as }] : [])),
  );
  /** The job as deploy.sh sends it, its placeholders substituted (envsubst). */
  const substituted = (o: unknown) =>
    JSON.parse(JSON.stringify(o).replaceAll('${PROJECT_ID}', 'p-123456').replaceAll('${REGION}', 'europe-west1').replaceAll('${PROJECT_NUMBER}', '123')) as {
      httpTarget: { headers: Record<string, string>; body: string };
    };

  it('podTerminated has its due-list tick every minute, as a ping', () => {
    expect(scheduled.filter((s) => s.target === 'podTerminated')).toEqual([expect.objectContaining({ as: 'ping' })]);
    const f = decl.functions.podTerminated!;
    expect(f.events.find((e) => 'schedule' in e)).toEqual({ schedule: { cron: '* * * * *', as: 'ping' } });
    // The tick holds its request up to the next one (60 s) before answering.
    expect(f.timeout).toBeGreaterThanOrEqual(65);
  });

  it('a target that reads a plain POST as a body (defrag: a plan only) has its schedule sent as a ping, or Cloud Scheduler would only ever plan', async () => {
    for (const { target, as } of scheduled) {
      const plain = isTarget(target) ? ((await TARGETS[target]()) as TargetSpec<unknown>).accepts.plain : undefined;
      if (plain === 'body') expect(as, target).toBe('ping');
    }
    expect(scheduled.filter((s) => s.target === 'defrag')).toEqual([expect.objectContaining({ as: 'ping' })]);
  }, 120_000);

  it.each(scheduled)('$target: the Cloud Scheduler job’s POST is a tick it takes', async ({ target, i }) => {
    const spec = gcp.scheduler[`${target.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}-${i}`];
    expect(spec).toBeDefined();
    const job = substituted(spec);
    const body = JSON.parse(Buffer.from(job.httpTarget.body, 'base64').toString('utf8')) as unknown;
    expect(await asTick(target, job.httpTarget.headers, body)).toBe('tick');
  });

  it.each(scheduled)('$target: a PingSource CloudEvent (Knative) is a tick it takes', async ({ target }) => {
    const headers = {
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-type': 'dev.knative.sources.ping',
      'ce-source': '/apis/v1/namespaces/kube-tidy/pingsources/x',
      'ce-id': '1',
    };
    expect(await asTick(target, headers, { function: target })).toBe('tick');
  });

  it('without `as: ping`, podTerminated’s and defrag’s Cloud Scheduler POST would not be a tick (the check has teeth)', async () => {
    expect(await asTick('podTerminated', { 'Content-Type': 'application/json' }, {})).not.toBe('tick');
    expect(await asTick('defrag', { 'Content-Type': 'application/json' }, {})).not.toBe('tick');
  });
});
