// THE ONE CONFIGMAP JSON STORE: kube-tidy's own shared state kept as JSON in a ConfigMap
// (the brakes' ledger, the sweep plans, the evacuation slots). Read (404: absent), parsed
// with a zod schema (what fails it was mangled by hand and counts as absent, so a bad edit
// never stops kube-tidy), written only at the resourceVersion it was read at,
// through the writer (DRY_RUN, protected namespaces), created when missing. Two instances
// never both write on the same copy: the loser meets a conflict, reads again and decides
// again (`update`, through retryOnConflict).
import type { CoreV1Api, V1ConfigMap } from '@kubernetes/client-node';
import type { z } from 'zod';
import { contended, retryOnConflict } from './conflict.js';
import { KubeError } from './errors.js';
import { readOrAbsent } from './read.js';
import type { ClusterWriter } from './writer.js';

export type ConfigMapReader = Pick<CoreV1Api, 'readNamespacedConfigMap'>;

/** A value <-> a ConfigMap's data. `decode(undefined)`: no ConfigMap yet. */
export interface ConfigMapCodec<T> {
  decode(data: Readonly<Record<string, string>> | undefined): T;
  encode(value: T): Record<string, string>;
}

const parsed = <T>(schema: z.ZodType<T>, raw: string): T | undefined => {
  try {
    const r = schema.safeParse(JSON.parse(raw));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
};

/** One JSON document under `key` (ConfigMap keys cannot hold every character a map key may). */
export function jsonDocument<T>(key: string, schema: z.ZodType<T>, empty: () => T): ConfigMapCodec<T> {
  return {
    decode: (data) => {
      const raw = data?.[key];
      return (raw === undefined ? undefined : parsed(schema, raw)) ?? empty();
    },
    encode: (value) => ({ [key]: JSON.stringify(value) }),
  };
}

/** One JSON entry per key, each checked on its own: an entry that fails the schema is left out. */
export function jsonEntries<T>(schema: z.ZodType<T>): ConfigMapCodec<Map<string, T>> {
  return {
    decode: (data) =>
      new Map(
        Object.entries(data ?? {}).flatMap(([k, raw]) => {
          const v = parsed(schema, raw);
          return v === undefined ? [] : [[k, v] as const];
        }),
      ),
    encode: (entries) => Object.fromEntries([...entries].map(([k, v]) => [k, JSON.stringify(v)])),
  };
}

export interface Seen<T> {
  value: T;
  /** The ConfigMap as read (its resourceVersion is the next write's precondition); absent: none yet. */
  cm: V1ConfigMap | undefined;
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

/** A read alone (no writer): what a reader of the state needs. */
export async function readStored<T>(core: ConfigMapReader, o: Pick<ConfigMapStoreOptions<T>, 'namespace' | 'name' | 'codec'>): Promise<Seen<T>> {
  const { namespace, name } = o;
  const cm = await readOrAbsent(`read configmap ${namespace}/${name}`, () => core.readNamespacedConfigMap({ namespace, name }));
  return { value: o.codec.decode(cm?.data), cm };
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
