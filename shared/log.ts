// One logger for every function and the CLI. On Google Cloud (Cloud Run functions set
// K_SERVICE; first-generation functions FUNCTION_TARGET and GOOGLE_CLOUD_PROJECT) a line on
// stdout becomes a structured log entry only if its level is in `severity` and its text in
// `message`; pino's numeric `level` and `msg` would all land as DEFAULT with no text.
// Elsewhere: pino's plain JSON.
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

const SEVERITY: Record<string, string> = {
  trace: 'DEBUG',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARNING',
  error: 'ERROR',
  fatal: 'CRITICAL',
};

// Whatever the callers pass, these never reach a log line: credentials travel in headers,
// tokens and kubeconfig contents. Paths are pino's redact syntax (one wildcard level).
export const REDACTED_PATHS = [
  'authorization',
  'token',
  'bearerToken',
  'password',
  'kubeconfig',
  'headers.authorization',
  'headers.cookie',
  '*.authorization',
  '*.token',
  '*.bearerToken',
  '*.password',
  '*.kubeconfig',
  '*.headers.authorization',
  '*.headers.cookie',
];

export function onGoogleCloud(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.K_SERVICE || (env.FUNCTION_TARGET && env.GOOGLE_CLOUD_PROJECT));
}

export interface CreateLoggerOptions {
  env?: NodeJS.ProcessEnv;
  /** Defaults to stdout; tests pass a stream to read the lines back. */
  destination?: DestinationStream;
  name?: string;
  /** Overrides LOG_LEVEL (the bridge's --verbose). */
  level?: string;
}

export function createLogger({ env = process.env, destination, name, level }: CreateLoggerOptions = {}): Logger {
  const censor = censorOf(REDACTED_PATHS, '[redacted]');
  const options: LoggerOptions = {
    level: level ?? (env.LOG_LEVEL || 'info'),
    // Not pino's `redact` (every line serialised through its wildcard redaction, ~12 µs a line):
    // the same paths censored before pino serialises, a line copied only when it holds one;
    // a child's bindings below.
    formatters: { log: censor },
    // RFC 3339 in `time`: Cloud Logging takes it as the entry's timestamp; people can read it.
    timestamp: pino.stdTimeFunctions.isoTime,
    ...(name ? { name } : {}),
  };
  if (onGoogleCloud(env)) {
    options.messageKey = 'message';
    options.formatters = { ...options.formatters, level: (label) => ({ severity: SEVERITY[label] ?? 'DEFAULT' }) };
    // pid and hostname say nothing on a managed platform; the entry's resource says more.
    options.base = null;
  }
  const logger = destination ? pino(options, destination) : pino(options);
  // pino formats no child's bindings (its children reset the bindings formatter): censored as
  // they are bound. Children inherit this property, so grandchildren are censored too.
  const pinoChild = logger.child as unknown as (this: Logger, bindings: object, ...rest: unknown[]) => Logger;
  logger.child = function (this: Logger, bindings: object, ...rest: unknown[]) {
    return pinoChild.call(this, censor(bindings), ...rest);
  } as unknown as Logger['child'];
  return logger;
}

// Credentials out of log lines, at the cost of a few property reads per line: only the paths
// named are walked, and an object is copied only on the way to a value it replaces (issue 45:
// pino's own redaction cost four times the rest of the event path's one line). Paths are
// pino's syntax as REDACTED_PATHS uses it: dot-separated keys, `*` a whole segment matching
// every key of an object, one level, as pino's wildcard.

type Censor = <T>(value: T) => T;

/** A censor replacing every value at one of `paths` with `replacement`. */
export function censorOf(paths: readonly string[], replacement: string): Censor {
  const tree = treeOf(paths);
  return <T>(value: T) => walk(value, tree, replacement) as T;
}

/** The paths as a tree of segments; a leaf (an empty map) is a value to censor. */
type Tree = Map<string, Tree>;

function treeOf(paths: readonly string[]): Tree {
  const root: Tree = new Map();
  for (const path of paths) {
    let node = root;
    for (const segment of path.split('.')) {
      let next = node.get(segment);
      if (!next) node.set(segment, (next = new Map()));
      node = next;
    }
  }
  return root;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** `value` with every path of `tree` censored: the same object when none is there, else a copy along the way. */
function walk(value: unknown, tree: Tree, replacement: string): unknown {
  if (!isObject(value)) return value;
  let out: Record<string, unknown> | undefined;
  const set = (key: string, v: unknown) => {
    if (v === value[key]) return;
    // A copy of the same kind (an Error stays an Error, with its message and stack for pino's serializer).
    out ??= Array.isArray(value)
      ? ([...value] as unknown as Record<string, unknown>)
      : (Object.create(Object.getPrototypeOf(value) as object | null, Object.getOwnPropertyDescriptors(value)) as Record<string, unknown>);
    out[key] = v;
  };
  for (const [segment, below] of tree) {
    const keys = segment === '*' ? Object.keys(value) : Object.hasOwn(value, segment) ? [segment] : [];
    for (const key of keys) {
      // A path's own value is censored whatever it holds; below it, only what the tree names.
      const current = out ? out[key] : value[key];
      set(key, below.size === 0 ? replacement : walk(current, below, replacement));
    }
  }
  return out ?? value;
}
