// classifyKubeError/toKubeError over the shapes client-node really throws: ApiException
// with the Status JSON as text, node-fetch's FetchError/AbortError, and plain bugs.
import { AbortError, ApiException, FetchError } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { classifyKubeError, KubeRequestError, scrub, toKubeError, TransientKubeError, type KubeErrorKind } from './errors.js';

const status = (code: number, reason: string, message: string, extra: object = {}) =>
  new ApiException(code, 'Unknown API Status Code!', JSON.stringify({ kind: 'Status', status: 'Failure', code, reason, message, ...extra }), {});

const refused = new FetchError(
  'request to https://127.0.0.1:1/api failed, reason: connect ECONNREFUSED',
  'system',
  Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
);

describe('classifyKubeError', () => {
  for (const row of [
    { sentence: 'a 404 is not-found', error: status(404, 'NotFound', 'pods "a" not found'), kind: 'not-found', wrapped: KubeRequestError },
    {
      sentence: 'a 409 precondition failure is a conflict',
      error: status(409, 'Conflict', 'UID mismatch', { details: { kind: 'Pod' } }),
      kind: 'conflict',
      wrapped: KubeRequestError,
    },
    { sentence: 'a 412 is a conflict too', error: status(412, 'Conflict', 'precondition'), kind: 'conflict', wrapped: KubeRequestError },
    {
      sentence: 'a 429 is too-many-requests and, outside eviction, worth a retry',
      error: status(429, 'TooManyRequests', 'slow down'),
      kind: 'too-many-requests',
      wrapped: TransientKubeError,
    },
    { sentence: 'a 403 is forbidden and permanent', error: status(403, 'Forbidden', 'no'), kind: 'forbidden', wrapped: KubeRequestError },
    {
      sentence: 'a 401 without a body is unauthorized and permanent',
      error: new ApiException(401, 'Unauthorized', undefined, {}),
      kind: 'unauthorized',
      wrapped: KubeRequestError,
    },
    { sentence: 'a 400 is invalid', error: status(400, 'BadRequest', 'bad'), kind: 'invalid', wrapped: KubeRequestError },
    { sentence: 'a 422 is invalid', error: status(422, 'Invalid', 'bad field'), kind: 'invalid', wrapped: KubeRequestError },
    { sentence: 'a 410 is expired and worth a fresh start', error: status(410, 'Expired', 'too old'), kind: 'expired', wrapped: TransientKubeError },
    { sentence: 'a 500 is transient', error: status(500, 'InternalError', 'etcd'), kind: 'transient', wrapped: TransientKubeError },
    {
      sentence: 'a 503 with an HTML body is transient',
      error: new ApiException(503, 'x', '<html>down</html>', {}),
      kind: 'transient',
      wrapped: TransientKubeError,
    },
    { sentence: 'a 504 is transient', error: status(504, 'Timeout', 'slow'), kind: 'transient', wrapped: TransientKubeError },
    { sentence: 'a 418 is some other rejection', error: status(418, '', 'teapot'), kind: 'rejected', wrapped: KubeRequestError },
    { sentence: 'a refused connection is transient', error: refused, kind: 'transient', wrapped: TransientKubeError },
    {
      sentence: 'an aborted request (our timeout) is transient',
      error: new AbortError('The operation was aborted.'),
      kind: 'transient',
      wrapped: TransientKubeError,
    },
    {
      sentence: 'a DOMException TimeoutError is transient',
      error: Object.assign(new Error('signal timed out'), { name: 'TimeoutError' }),
      kind: 'transient',
      wrapped: TransientKubeError,
    },
    { sentence: 'a programming error is unknown and returned unchanged', error: new TypeError('x is undefined'), kind: 'unknown', wrapped: TypeError },
  ] as { sentence: string; error: unknown; kind: KubeErrorKind; wrapped: new (...args: never[]) => Error }[])
    it(row.sentence, () => {
      const { error, kind, wrapped } = row;
      expect(classifyKubeError(error).kind).toBe(kind);
      const result = toKubeError(error, 'delete pod ns/a');
      expect(result).toBeInstanceOf(wrapped);
      if (kind === 'unknown') expect(result).toBe(error);
      else expect(result.message).toMatch(/^delete pod ns\/a: /);
    });

  it('reads the reason, details, causes, Retry-After and an inconsistent continue token', () => {
    const error = new ApiException(
      429,
      'x',
      JSON.stringify({
        reason: 'TooManyRequests',
        message: "Cannot evict pod as it would violate the pod's disruption budget.",
        metadata: { continue: 'tok' },
        details: { kind: 'pods', causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget guard does not allow evicting pods currently' }] },
      }),
      { 'retry-after': '7' },
    );
    expect(classifyKubeError(error)).toEqual({
      kind: 'too-many-requests',
      status: 429,
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      detailsKind: 'pods',
      causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget guard does not allow evicting pods currently' }],
      retryAfterSeconds: 7,
      continueToken: 'tok',
    });
  });

  it('keeps the status on the wrapped error', () => {
    const wrapped = toKubeError(status(403, 'Forbidden', 'pods "a" is forbidden'), 'evict pod ns/a');
    expect(wrapped).toMatchObject({ status: 403, kind: 'forbidden', name: 'KubeRequestError' });
    expect(wrapped.message).toBe('evict pod ns/a: 403 Forbidden pods "a" is forbidden');
  });
});

describe('scrub', () => {
  for (const row of [
    { sentence: 'a bearer token is redacted', text: 'Authorization: Bearer eyJhbGciOi.abc-def_123', out: 'Authorization: Bearer [redacted]' },
    {
      sentence: 'user:password in a URL is redacted',
      text: 'request to https://admin:s3cret@10.0.0.1:6443/api failed',
      out: 'request to https://[redacted]@10.0.0.1:6443/api failed',
    },
    { sentence: 'ordinary text is left alone', text: 'pods "a" not found', out: 'pods "a" not found' },
  ])
    it(row.sentence, () => {
      const { text, out } = row;
      expect(scrub(text)).toBe(out);
    });

  it('applies to messages taken from the server and from the network', () => {
    const error = status(500, 'InternalError', 'echoing Bearer abc.def');
    expect(classifyKubeError(error).message).toBe('echoing Bearer [redacted]');
  });
});
