// What the bridge logs through: pino's call shape, `log.info(fields, msg)`, so the real logger
// (shared/log.ts, with redaction) fits, and tests can pass a few closures instead.
import { createLogger } from '../../log.js';

export interface Logger {
  debug(fields: object, msg: string): void;
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}

export const silentLogger: Logger = createLogger({ level: 'silent' });
