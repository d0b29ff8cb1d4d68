// A tiny JSON-lines logger for the bridge (shared/log.ts does not exist yet). Its call shape,
// `log.info(fields, msg)`, is pino's, so a pino logger can be passed in instead.

export interface Logger {
  debug(fields: object, msg: string): void;
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}

const LEVELS = { debug: 20, info: 30, warn: 40, error: 50 } as const;
const SEVERITY = { debug: 'DEBUG', info: 'INFO', warn: 'WARNING', error: 'ERROR' } as const;
export type Level = keyof typeof LEVELS;

/** One JSON object per line; `severity` is what Cloud Logging reads, `level` what pino tools read. */
export function jsonLogger(write: (line: string) => void = (s) => process.stderr.write(s), min: Level = 'info'): Logger {
  const at = (level: Level) => (fields: object, msg: string) => {
    if (LEVELS[level] < LEVELS[min]) return;
    write(`${JSON.stringify({ level, severity: SEVERITY[level], time: new Date().toISOString(), msg, ...fields })}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
