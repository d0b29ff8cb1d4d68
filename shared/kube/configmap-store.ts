// THE ONE CONFIGMAP JSON STORE: kube-tidy's own shared state kept as JSON in a ConfigMap
// (the brakes' ledger, the sweep plans, the evacuation slots, the due list). Read (404:
// absent), parsed with a zod schema, written only at the resourceVersion it was read at,
// through the writer (DRY_RUN, protected namespaces), created when missing. Two instances
// never both write on the same copy: the loser meets a conflict, reads again and decides
// again (`update`, through retryOnConflict).
// What fails the schema (a bad restore, a botched `kubectl edit`, another tool) is never
// quietly taken as empty: a read says what could not be read (`unreadable`), and each store's
// owner decides what that stops (the brakes stop the removals that need them; docs/safety.md "What
// kube-tidy keeps in the cluster").
import type { CoreV1Api, V1ConfigMap } from '@kubernetes/client-node';
import type { z } from 'zod';
import { contended, retryOnConflict } from './conflict.js';
import { KubeError } from './errors.js';
import { readOrAbsent } from './read.js';
import type { ClusterWriter } from './writer.js';

export type ConfigMapReader = Pick<CoreV1Api, 'readNamespacedConfigMap'>;

/** A key of the ConfigMap that is not what its owner wrote: which, why, and the start of what it holds. */
export interface Unreadable {
  key: string;
  why: string;
  /** The first characters of the text, for the person who mends it. */
  excerpt: string;
}

/** A ConfigMap's data read: the value made of what could be read, and what could not. */
export interface Decoded<T> {
  value: T;
  unreadable: Unreadable[];
}

/** A value <-> a ConfigMap's data. `decode(undefined)`: no ConfigMap yet. */
export interface ConfigMapCodec<T> {
  decode(data: Readonly<Record<string, string>> | undefined): Decoded<T>;
  encode(value: T): Record<string, string>;
}

const EXCERPT = 200;

const parsed = <T>(schema: z.ZodType<T>, key: string, raw: string): { value: T } | { unreadable: Unreadable } => {
  const bad = (why: string) => ({ unreadable: { key, why, excerpt: raw.slice(0, EXCERPT) } });
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    return bad(`not JSON: ${(e as Error).message}`);
  }
  const r = schema.safeParse(json);
  if (r.success) return { value: r.data };
  const issue = r.error.issues[0]!;
  return bad(`${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
};

/**
 * One JSON document under `key` (ConfigMap keys cannot hold every character a map key may).
 * No ConfigMap: `empty()`. A ConfigMap without the key, or with one that fails the schema:
 * `empty()` too, with the key unreadable.
 */
export function jsonDocument<T>(key: string, schema: z.ZodType<T>, empty: () => T): ConfigMapCodec<T> {
  return {
    decode: (data) => {
      if (data === undefined) return { value: empty(), unreadable: [] };
      const raw = data[key];
      const got = raw === undefined ? { unreadable: { key, why: 'missing', excerpt: '' } } : parsed(schema, key, raw);
      return 'value' in got ? { value: got.value, unreadable: [] } : { value: empty(), unreadable: [got.unreadable] };
    },
    encode: (value) => ({ [key]: JSON.stringify(value) }),
  };
}

/** One JSON entry per key, each checked on its own: an entry that fails the schema is left out of the value and said unreadable. */
export function jsonEntries<T>(schema: z.ZodType<T>): ConfigMapCodec<Map<string, T>> {
  return {
    decode: (data) => {
      const value = new Map<string, T>();
      const unreadable: Unreadable[] = [];
      for (const [k, raw] of Object.entries(data ?? {})) {
        const got = parsed(schema, k, raw);
        if ('value' in got) value.set(k, got.value);
        else unreadable.push(got.unreadable);
      }
      return { value, unreadable };
    },
    encode: (entries) => Object.fromEntries([...entries].map(([k, v]) => [k, JSON.stringify(v)])),
  };
}

export interface Seen<T> {
  value: T;
  /** The ConfigMap as read (its resourceVersion is the next write's precondition); absent: none yet. */
  cm: V1ConfigMap | undefined;
  /** What the ConfigMap holds that is not what kube-tidy wrote (left out of `value`). */
  unreadable: Unreadable[];
}

export interface ConfigMapStoreOptions<T> {
  namespace: string;
  name: string;
  codec: ConfigMapCodec<T>;
  /** Create a missing namespace (kube-tidy's own) on the first write; named so in its error ("the brakes' ledger"). */
  createNamespaceFor?: string;
  /** The short reason of the error when `update` stays contended. */
  contendedMessage?: string;
}

/**
 * What a codec decodes from a ConfigMap as read: undefined only when there is no ConfigMap. One
 * that exists with no `data` at all (a `kubectl edit` that removed it, another tool) is not a
 * new store: kube-tidy never writes one without its keys, so its keys are said missing.
 */
export const dataOf = (cm: V1ConfigMap | undefined): Readonly<Record<string, string>> | undefined => (cm ? (cm.data ?? {}) : undefined);

/** A read alone (no writer): what a reader of the state needs. */
export async function readStored<T>(core: ConfigMapReader, o: Pick<ConfigMapStoreOptions<T>, 'namespace' | 'name' | 'codec'>): Promise<Seen<T>> {
  const { namespace, name } = o;
  const cm = await readOrAbsent(`read configmap ${namespace}/${name}`, () => core.readNamespacedConfigMap({ namespace, name }));
  return { ...o.codec.decode(dataOf(cm)), cm };
}

export class ConfigMapStore<T> {
  constructor(
    private readonly core: ConfigMapReader,
    private readonly writer: ClusterWriter,
    private readonly o: ConfigMapStoreOptions<T>,
  ) {}

  get ref(): string {
    return `${this.o.namespace}/${this.o.name}`;
  }

  read(): Promise<Seen<T>> {
    return readStored(this.core, this.o);
  }

  /**
   * Writes `value` if the ConfigMap is still `seen`: the new stored copy, or false when someone
   * wrote first (or deleted it since it was read: read again and create).
   */
  async write(seen: V1ConfigMap | undefined, value: T): Promise<V1ConfigMap | false> {
    const { namespace, name, createNamespaceFor } = this.o;
    const data = this.o.codec.encode(value);
    try {
      return await this.writer.writeConfigMap(namespace, name, seen, data);
    } catch (e) {
      if (!(e instanceof KubeError) || e.failure.kind !== 'not-found') throw e;
      if (seen) return false;
      if (createNamespaceFor === undefined) throw e;
    }
    try {
      await this.writer.createNamespace(namespace);
    } catch (ce) {
      // "create namespace x: forbidden" alone does not say why kube-tidy wanted one: name the store (same class: 500 or 503).
      if (ce instanceof KubeError)
        throw new (ce.constructor as typeof KubeError)(
          `${createNamespaceFor} ${namespace}/${name}: its namespace is missing and could not be created: ${ce.message}`,
          ce.failure,
        );
      throw ce;
    }
    return this.writer.writeConfigMap(namespace, name, seen, data);
  }

  /**
   * Read, decide, write at the resourceVersion read; on a conflict, again (at most `attempts`
   * times, then a transient error). `decide` answers `next` to write it, or nothing to leave
   * the ConfigMap as it is; `answer` is what `update` returns.
   */
  async update<R>(decide: (seen: Seen<T>) => { next?: T; answer: R }, attempts: number): Promise<R> {
    const done = await retryOnConflict(
      () => this.read(),
      async (seen) => {
        const { next, answer } = decide(seen);
        if (next === undefined) return { answer };
        return (await this.write(seen.cm, next)) ? { answer } : false;
      },
      {
        attempts,
        exhausted: () => {
          throw contended(this.ref, attempts, this.o.contendedMessage ?? `${this.o.name} contended`);
        },
      },
    );
    return done.answer;
  }
}
