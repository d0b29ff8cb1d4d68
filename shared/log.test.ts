// The logger's output as Cloud Logging and a terminal read it: severity and message on
// Google Cloud, pino's JSON elsewhere, LOG_LEVEL honoured, credentials never written.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, onGoogleCloud } from './log.js';

function capture(env: NodeJS.ProcessEnv) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  // pino writes synchronously to a plain Writable, so lines are there when the call returns.
  return { logger: createLogger({ env, destination }), lines };
}

const GCP_RUN = { K_SERVICE: 'pod-terminated' };

describe('createLogger', () => {
  for (const row of [
    { sentence: 'on Cloud Run info becomes severity INFO with the text in message', env: GCP_RUN, level: 'info', severity: 'INFO' },
    { sentence: 'on Cloud Run warn becomes WARNING', env: GCP_RUN, level: 'warn', severity: 'WARNING' },
    { sentence: 'on Cloud Run error becomes ERROR', env: GCP_RUN, level: 'error', severity: 'ERROR' },
    { sentence: 'on Cloud Run fatal becomes CRITICAL', env: GCP_RUN, level: 'fatal', severity: 'CRITICAL' },
    {
      sentence: 'on first-generation functions debug becomes DEBUG',
      env: { FUNCTION_TARGET: 'sweep', GOOGLE_CLOUD_PROJECT: 'p', LOG_LEVEL: 'debug' },
      level: 'debug',
      severity: 'DEBUG',
    },
  ] as const)
    it(row.sentence, () => {
      const { env, level, severity } = row;
      const { logger, lines } = capture(env);
      logger[level]({ pod: 'ml/a' }, 'deleted');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ severity, message: 'deleted', pod: 'ml/a' });
      expect(lines[0]).not.toHaveProperty('level');
      expect(lines[0]).not.toHaveProperty('msg');
      expect(lines[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

  it('elsewhere writes plain pino JSON with a numeric level and msg', () => {
    const { logger, lines } = capture({});
    logger.warn({ pod: 'ml/a' }, 'blocked');
    expect(lines[0]).toMatchObject({ level: 40, msg: 'blocked', pod: 'ml/a' });
    expect(lines[0]).not.toHaveProperty('severity');
  });

  for (const row of [
    { sentence: 'LOG_LEVEL=warn drops info', env: { LOG_LEVEL: 'warn' }, written: 1 },
    { sentence: 'LOG_LEVEL=debug keeps debug', env: { LOG_LEVEL: 'debug' }, written: 3 },
    { sentence: 'the default level is info', env: {}, written: 2 },
  ])
    it(row.sentence, () => {
      const { env, written } = row;
      const { logger, lines } = capture(env);
      logger.debug('d');
      logger.info('i');
      logger.warn('w');
      expect(lines).toHaveLength(written);
    });

  for (const row of [
    { sentence: 'an authorization header is redacted', fields: { headers: { authorization: 'Bearer abc' } } },
    { sentence: 'a nested request header is redacted', fields: { req: { headers: { authorization: 'Bearer abc' } } } },
    { sentence: 'a token is redacted', fields: { token: 'abc' } },
    { sentence: 'a token one level down is redacted', fields: { user: { token: 'abc' } } },
    { sentence: 'kubeconfig contents are redacted', fields: { kubeconfig: 'users: [{user: {token: abc}}]' } },
  ])
    it(row.sentence, () => {
      const { fields } = row;
      const { logger, lines } = capture(GCP_RUN);
      logger.info(fields, 'request');
      expect(JSON.stringify(lines[0])).not.toContain('abc');
      expect(JSON.stringify(lines[0])).toContain('[redacted]');
    });
});

describe('redaction touches only what it censors', () => {
  it("a child logger's bindings are redacted too", () => {
    const { logger, lines } = capture({});
    logger.child({ token: 'abc', pod: 'ml/a' }).info('bound');
    expect(JSON.stringify(lines[0])).not.toContain('abc');
    expect(lines[0]).toMatchObject({ token: '[redacted]', pod: 'ml/a' });
  });

  it('an error carrying a token keeps its message and type; the token is redacted', () => {
    const { logger, lines } = capture({});
    const err = Object.assign(new Error('refused'), { token: 'abc' });
    logger.error({ err }, 'failed');
    expect(lines[0]).toMatchObject({ err: { message: 'refused', type: 'Error', token: '[redacted]' } });
    expect(JSON.stringify(lines[0])).not.toContain('abc');
  });

  it("the caller's object is left as it was, and a line with nothing to censor is written whole", () => {
    const { logger, lines } = capture({});
    const fields = { headers: { authorization: 'Bearer abc', accept: 'json' }, result: { uid: 'u1', outcome: 'deleted' } };
    logger.info(fields, 'request');
    logger.info({ result: { uid: 'u2', outcome: 'kept' }, tokens: 3 }, 'handled');
    expect(fields.headers.authorization).toBe('Bearer abc');
    expect(lines[0]).toMatchObject({ headers: { authorization: '[redacted]', accept: 'json' }, result: { uid: 'u1', outcome: 'deleted' } });
    expect(lines[1]).toMatchObject({ result: { uid: 'u2', outcome: 'kept' }, tokens: 3 });
  });
});

describe('onGoogleCloud', () => {
  for (const row of [
    { env: { K_SERVICE: 's' }, expected: true },
    { env: { FUNCTION_TARGET: 't', GOOGLE_CLOUD_PROJECT: 'p' }, expected: true },
    { env: { FUNCTION_TARGET: 't' }, expected: false },
    { env: {}, expected: false },
  ])
    it(`is ${JSON.stringify(row.expected)} for ${JSON.stringify(row.env)}`, () => {
      const { env, expected } = row;
      expect(onGoogleCloud(env)).toBe(expected);
    });
});
