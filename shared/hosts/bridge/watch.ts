// One kind's watch, kept alive: LIST once for a resourceVersion (objects that already exist
// produce no events, as with Knative's ApiServerSource, whose store ignores the initial
// list), then WATCH from it. A watch that ends or breaks is resumed from the last
// resourceVersion seen, so nothing is lost; only when the API server answers 410 Gone (that
// version is compacted away) does it re-list, and the changes in between are lost, as they
// are with Knative's reflector. Each such gap is logged with its versions and duration.
import { KubernetesObjectApi, Watch, type KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, Verb } from '../../cloudevents/index.js';
import { abortableSleep } from './deliver.js';
import { collectionPath, type KindInfo } from './kinds.js';
import type { Logger } from './log.js';

export interface WatchOptions {
  kubeConfig: KubeConfig;
  kind: KindInfo;
  namespace?: string;
  labelSelector?: string;
  onEvent: (verb: Verb, object: KubeObject) => void;
  onGap?: (gap: { from: string; to: string }) => void;
  onError?: (error: unknown) => void;
  log: Logger;
  /** Watch from this resourceVersion instead of a fresh list's (tests use it to provoke 410). */
  startAt?: string;
  /** First and largest delay between attempts after a failure. */
  backoff?: { minMs: number; maxMs: number };
}

export interface KindWatch {
  stop(): Promise<void>;
}

const VERBS: Record<string, Verb> = { ADDED: 'add', MODIFIED: 'update', DELETED: 'delete' };

type WatchEnd = { how: 'closed'; events: number } | { how: 'gone' } | { how: 'failed'; error: unknown };

/** What one kind's watch holds while it runs: its options, its clients and its stop signal. */
interface Watching {
  readonly o: WatchOptions;
  readonly backoff: { minMs: number; maxMs: number };
  readonly path: string;
  readonly list: () => Promise<string>;
  readonly watch: Watch;
  readonly stopping: AbortController;
  /** The request in flight, once Watch.watch has handed out its controller. */
  current: AbortController | undefined;
  /** Said on every log line. */
  readonly ctx: { kind: string; namespace?: string };
}

/** Resolves once the first LIST has answered (changes after that are seen); rejects if it fails. */
export async function startKindWatch(o: WatchOptions): Promise<KindWatch> {
  const { kind, log } = o;
  const path = collectionPath(kind, o.namespace);
  const objects = KubernetesObjectApi.makeApiClient(o.kubeConfig);
  // limit=1: only the list's resourceVersion is needed, never the objects.
  const list = async (): Promise<string> => {
    const res = await objects.list(kind.apiVersion, kind.kind, o.namespace, undefined, undefined, undefined, undefined, o.labelSelector, 1);
    const rv = res.metadata?.resourceVersion;
    if (!rv) throw new Error(`LIST ${path} returned no resourceVersion`);
    return rv;
  };
  const w: Watching = {
    o,
    backoff: o.backoff ?? { minMs: 500, maxMs: 30_000 },
    path,
    list,
    watch: new Watch(o.kubeConfig),
    stopping: new AbortController(),
    current: undefined,
    ctx: { kind: kind.kind, ...(o.namespace ? { namespace: o.namespace } : {}) },
  };

  const rv = o.startAt ?? (await list());
  log.info(
    { ...w.ctx, resourceVersion: rv },
    o.startAt ? 'watching from the given resourceVersion' : 'watching from a fresh list (existing objects produce no events)',
  );
  const running = keepWatching(w, rv).catch((e: unknown) => log.error({ ...w.ctx, error: message(e) }, 'watch loop crashed'));

  return {
    async stop() {
      w.stopping.abort();
      w.current?.abort();
      await running;
    },
  };
}

/** One WATCH request from a resourceVersion, until it ends: how it ended and the last version seen. */
function watchOnce(w: Watching, from: string): Promise<WatchEnd & { last: string }> {
  const { o, ctx, stopping } = w;
  const { kind, log } = o;
  return new Promise((resolve) => {
    let last = from;
    let events = 0;
    let gone = false;
    const params = { resourceVersion: from, allowWatchBookmarks: true, labelSelector: o.labelSelector };
    const onLine = (type: string, obj: unknown) => {
      events++;
      if (type === 'ERROR') {
        const status = obj as { code?: number; message?: string };
        if (status.code === 410) gone = true;
        else log.warn({ ...ctx, status }, 'watch sent an error');
        return;
      }
      const object = obj as KubeObject;
      const objectRv = object.metadata?.resourceVersion;
      if (objectRv) last = objectRv;
      const verb = VERBS[type];
      if (verb === undefined) return; // BOOKMARK: only moves the resourceVersion on
      o.onEvent(verb, { ...object, apiVersion: object.apiVersion ?? kind.apiVersion, kind: object.kind ?? kind.kind });
    };
    const onDone = (err: unknown) => {
      if (gone || (err as { statusCode?: number } | null)?.statusCode === 410) resolve({ how: 'gone', last });
      else if (err && !stopping.signal.aborted) resolve({ how: 'failed', error: err, last });
      else resolve({ how: 'closed', events, last });
    };
    // Watch.watch hands out its AbortController only once the response has started, so a
    // request that hangs before that could not be cancelled: stop must not wait for it.
    const onStop = () => resolve({ how: 'closed', events, last });
    stopping.signal.addEventListener('abort', onStop, { once: true });
    w.watch
      .watch(w.path, params, onLine, (err: unknown) => {
        stopping.signal.removeEventListener('abort', onStop);
        onDone(err);
      })
      .then(
        (c) => {
          w.current = c;
          if (stopping.signal.aborted) c.abort();
        },
        (e: unknown) => onDone(e),
      );
  });
}

/** LIST again after 410 Gone, backing off until it answers; undefined once stopped. */
async function relist(w: Watching): Promise<string | undefined> {
  for (let failures = 0; !w.stopping.signal.aborted; failures++) {
    try {
      return await w.list();
    } catch (e) {
      w.o.onError?.(e);
      const delayMs = Math.min(w.backoff.maxMs, w.backoff.minMs * 2 ** failures);
      w.o.log.warn({ ...w.ctx, error: message(e), retryInMs: delayMs }, 'list failed');
      await abortableSleep(delayMs, w.stopping.signal);
    }
  }
  return undefined;
}

/** Watch, resume from the last version seen, re-list on 410 Gone, back off on failures; until stopped. */
async function keepWatching(w: Watching, from: string): Promise<void> {
  const { o, ctx, stopping, backoff } = w;
  const { log } = o;
  let rv = from;
  let failures = 0;
  while (!stopping.signal.aborted) {
    const started = Date.now();
    const end = await watchOnce(w, rv);
    rv = end.last;
    if (stopping.signal.aborted) break;
    if (end.how === 'gone') {
      const from = rv;
      const next = await relist(w);
      if (next === undefined) break;
      rv = next;
      const gap = { from, to: rv };
      o.onGap?.(gap);
      log.warn(
        { ...ctx, fromResourceVersion: gap.from, toResourceVersion: gap.to },
        'watch gap: resourceVersion expired (410 Gone), re-listed; changes between the two versions produced no events (a sweep covers them)',
      );
      failures = 0;
      continue;
    }
    // A watch the server closed after a while is routine (its timeout): resume at once.
    if (end.how === 'closed' && (end.events > 0 || Date.now() - started > 1_000)) {
      failures = 0;
      log.debug({ ...ctx, resourceVersion: rv }, 'watch closed by the server, resuming');
      continue;
    }
    failures++;
    const delayMs = Math.min(backoff.maxMs, backoff.minMs * 2 ** (failures - 1));
    if (end.how === 'failed') o.onError?.(end.error);
    const error = end.how === 'failed' ? message(end.error) : 'closed at once';
    log.warn({ ...ctx, error, resourceVersion: rv, retryInMs: delayMs }, 'watch failed, resuming from the last resourceVersion');
    await abortableSleep(delayMs, stopping.signal);
  }
}

function message(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown; statusCode?: unknown }).statusCode ?? (e as { code?: unknown }).code;
    return code === undefined ? e.message : `${e.message} (${String(code)})`;
  }
  return String(e);
}
