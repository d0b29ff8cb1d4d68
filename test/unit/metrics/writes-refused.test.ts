import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { KubeRequestError, TransientKubeError } from '../../../shared/kube/errors.js';
import { LOG_PER_WINDOW, refusalOf, WriteRefusals } from '../../../shared/kube/write-refusals.js';
import { ClusterWriter, WriteRefusedError, type WriterClients } from '../../../shared/kube/writer.js';
import { createLogger } from '../../../shared/log.js';
import { metricsExposition } from '../../../shared/metrics/exposition.js';
import { MetricsRecorder } from '../../../shared/metrics/recorder.js';
import type { RemovalTarget } from '../../../shared/kube/evict-only.js';
import { FencedError } from '../../../shared/hosts/standalone/fence.js';
import { metricNames } from '../../fixtures/metrics/promcheck.js';
import { testTicket } from '../../fixtures/ticket.js';

// Issue 23, item 3: every write refused, by kube-tidy or by the API server, is counted at the
// one writer by reason and verb (fixed sets) and logged as a sample a flood cannot fill.

/** What client-node throws when the API server answers `code` with a Status. */
const apiError = (code: number, reason: string, message: string, causes?: { reason: string; message: string }[]) =>
  Object.assign(new Error(`HTTP-Code: ${code}`), {
    code,
    body: JSON.stringify({ kind: 'Status', reason, message, ...(causes ? { details: { causes } } : {}) }),
  });

const pod = (over: Partial<RemovalTarget> = {}) =>
  ({ namespace: 'ml', name: 'a', uid: 'u1', resourceVersion: '7', phase: 'Failed', evictOnly: false, ...over }) as RemovalTarget;

function writer(core: Record<string, unknown>, protectedNamespaces: string[] = ['kube-system']) {
  return new ClusterWriter({ core, podWrites: core, events: {}, custom: {} } as unknown as WriterClients, {
    dryRun: false,
    recordEvents: false,
    protectedNamespaces,
    refusals,
  });
}

let lines: Record<string, unknown>[];
let refusals: WriteRefusals;
/** The recorder the host would build (one per test here), which the refusals count in. */
let metrics: MetricsRecorder;
const refusedLines = () => lines.filter((l) => l.msg === 'write refused');
const counted = async (reason: string, verb: string) => {
  const body = (await metricsExposition(metrics)).body;
  const line = body.split('\n').find((l) => l.startsWith(`kube_tidy_writes_refused_total{reason="${reason}",verb="${verb}"} `));
  return line ? Number(line.split(' ')[1]) : 0;
};

beforeEach(() => {
  lines = [];
  metrics = new MetricsRecorder();
  refusals = new WriteRefusals(
    metrics,
    createLogger({ env: {}, destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } }),
    () => Date.now(),
  );
});
afterEach(async () => {
  vi.useRealTimers();
  await metrics.shutdown();
});

describe('kube_tidy_writes_refused_total, at the writer', () => {
  it('a flood of deletes RBAC forbids: every one counted, the first few logged, then one summary line', async () => {
    vi.useFakeTimers();
    refusals = new WriteRefusals(
      metrics,
      createLogger({ env: {}, destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } }),
      () => Date.now(),
    );
    const w = writer({
      deleteNamespacedPod: () =>
        Promise.reject(apiError(403, 'Forbidden', 'pods "a" is forbidden: User "system:serviceaccount:x:y" cannot delete resource "pods"')),
    });
    for (let i = 0; i < 200; i++) await expect(w.removePod(pod(), testTicket(), 'test')).rejects.toBeInstanceOf(KubeRequestError);
    expect(refusedLines()).toHaveLength(LOG_PER_WINDOW);
    expect(refusedLines()[0]).toMatchObject({ level: 40, verb: 'delete', reason: 'forbidden', what: 'delete pod ml/a' });
    expect(String(refusedLines()[0]!.message)).toContain('cannot delete resource "pods"');
    vi.advanceTimersByTime(60_000);
    expect(lines.filter((l) => l.msg === 'write refusals not logged one by one')).toEqual([
      expect.objectContaining({ reason: 'forbidden', suppressed: 200 - LOG_PER_WINDOW }),
    ]);
    vi.useRealTimers();
    expect(await counted('forbidden', 'delete')).toBe(200);
  });

  it('a removal in a protected namespace: refused before anything is sent, counted as protected-namespace', async () => {
    const sent = vi.fn();
    await expect(writer({ createNamespacedPodEviction: sent }, ['ml']).removePod(pod({ phase: 'Running' }), testTicket(), 'test')).rejects.toBeInstanceOf(
      WriteRefusedError,
    );
    expect(sent).not.toHaveBeenCalled();
    expect(await counted('protected-namespace', 'evict')).toBe(1);
    expect(refusedLines()).toEqual([expect.objectContaining({ reason: 'protected-namespace', verb: 'evict' })]);
  });

  it('an eviction a PodDisruptionBudget refuses is blocked, counted as disruption-budget; a stale precondition as stale', async () => {
    const budget = apiError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", [
      { reason: 'DisruptionBudget', message: 'The disruption budget pdb needs 1 healthy pods' },
    ]);
    expect(
      (await writer({ createNamespacedPodEviction: () => Promise.reject(budget) }).removePod(pod({ phase: 'Running' }), testTicket(), 'test')).outcome,
    ).toBe('blocked');
    expect(
      (
        await writer({
          deleteNamespacedPod: () => Promise.reject(apiError(409, 'Conflict', 'Precondition failed: UID in precondition: u1, UID in object meta: u2')),
        }).removePod(pod(), testTicket(), 'test')
      ).outcome,
    ).toBe('stale');
    expect(await counted('disruption-budget', 'evict')).toBe(1);
    expect(await counted('stale', 'delete')).toBe(1);
  });

  it('a delete tied to what was read that finds it written since (a retired ConfigMap, a custom object) is stale, counted as a pod’s is', async () => {
    const conflict = () =>
      Promise.reject(apiError(409, 'Conflict', 'Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: 2'));
    const w = new ClusterWriter(
      {
        core: { deleteNamespacedConfigMap: conflict },
        podWrites: {},
        events: {},
        custom: { deleteNamespacedCustomObject: conflict },
      } as unknown as WriterClients,
      { dryRun: false, recordEvents: false, protectedNamespaces: [], refusals },
    );
    expect(await w.deleteConfigMap('kube-tidy', 'old', { metadata: { uid: 'u1', resourceVersion: '1' } })).toBe('stale');
    expect(
      await w.deleteObject({ group: 'g', version: 'v1', plural: 'things' }, { namespace: 'ml', name: 'x', uid: 'u2', resourceVersion: '1' }, testTicket()),
    ).toBe('stale');
    expect(await counted('stale', 'delete')).toBe(2);
    expect(refusedLines().map((l) => l.what)).toEqual(['delete configmap kube-tidy/old', 'delete things ml/x']);
  });

  it('KubeVirt answering an eviction with "Eviction triggered evacuation" is what the evacuation asked for: not a refusal', async () => {
    const started = apiError(429, 'TooManyRequests', 'Eviction triggered evacuation of VMI "ml/vm"');
    expect(
      (await writer({ createNamespacedPodEviction: () => Promise.reject(started) }).evictPodForMigration(pod({ phase: 'Running' }), testTicket())).outcome,
    ).toBe('blocked');
    expect(await counted('eviction-blocked', 'evict')).toBe(0);
    expect(refusedLines()).toEqual([]);
  });

  it('a transient failure (a 503) is not a refusal: a retry may succeed', async () => {
    await expect(
      writer({ deleteNamespacedPod: () => Promise.reject(apiError(503, 'ServiceUnavailable', 'down')) }).removePod(pod(), testTicket(), 'test'),
    ).rejects.toBeInstanceOf(TransientKubeError);
    expect((await metricsExposition(metrics)).body).not.toMatch(/^kube_tidy_writes_refused_total\{/m);
    expect(refusedLines()).toEqual([]);
  });
});

describe('refusalOf: the fixed reasons', () => {
  it.each([
    ['403 Forbidden (RBAC)', apiError(403, 'Forbidden', 'no'), 'forbidden'],
    ['401 Unauthorized', apiError(401, 'Unauthorized', 'no'), 'unauthorized'],
    ['422 Invalid', apiError(422, 'Invalid', 'bad'), 'invalid'],
    ['400 BadRequest', apiError(400, 'BadRequest', 'bad'), 'invalid'],
    ['409 Conflict (a precondition)', apiError(409, 'Conflict', 'changed'), 'stale'],
    ['405 MethodNotAllowed', apiError(405, 'MethodNotAllowed', 'no'), 'rejected'],
    ['a write this replica may not send (fenced)', new FencedError('delete pod ml/a'), 'fenced'],
    ['500', apiError(500, 'InternalError', 'boom'), undefined],
    ['a bug', new TypeError('x is undefined'), undefined],
  ])('%s -> %s', (_what, error, reason) => {
    expect(refusalOf(error)).toBe(reason);
  });
});

describe('the dashboard and the alerts show it', () => {
  const FILES = fileURLToPath(new URL('../../../infra/helm/kube-tidy/files/', import.meta.url));
  it('a panel by reason and verb, and KubeTidyWritesForbidden on forbidden/unauthorized writes', () => {
    const dashboard = JSON.parse(readFileSync(`${FILES}dashboard.json`, 'utf8')) as { panels: { title: string; targets?: { expr: string }[] }[] };
    const panel = dashboard.panels.find((p) => p.title.startsWith('Writes refused'));
    expect(panel?.targets?.map((t) => t.expr).join('\n')).toMatch(/sum by \(reason, verb\) \(rate\(kube_tidy_writes_refused_total\[/);
    const alerts = parse(readFileSync(`${FILES}alerts.yaml`, 'utf8')) as {
      groups: { rules: { alert: string; expr: string; labels?: Record<string, string> }[] }[];
    };
    const rule = alerts.groups.flatMap((g) => g.rules).find((r) => r.alert === 'KubeTidyWritesForbidden');
    expect(metricNames([rule!.expr])[0]).toEqual(['kube_tidy_writes_refused_total']);
    expect(rule!.expr).toMatch(/reason=~"forbidden\|unauthorized"/);
    expect(rule!.labels?.severity).toBe('warning');
  });
});
