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
  const options: LoggerOptions = {
    level: level ?? (env.LOG_LEVEL || 'info'),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // RFC 3339 in `time`: Cloud Logging takes it as the entry's timestamp; people can read it.
    timestamp: pino.stdTimeFunctions.isoTime,
    ...(name ? { name } : {}),
  };
  if (onGoogleCloud(env)) {
    options.messageKey = 'message';
    options.formatters = { level: (label) => ({ severity: SEVERITY[label] ?? 'DEFAULT' }) };
    // pid and hostname say nothing on a managed platform; the entry's resource says more.
    options.base = null;
  }
  return destination ? pino(options, destination) : pino(options);
}
