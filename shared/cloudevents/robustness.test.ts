import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Json, pod } from '../../test/fixtures/events/requests.js';
import { decodeEvent } from './decode.js';
import { BadEventError } from './errors.js';

// The adapters map BadEventError to a 4xx and anything else to a 5xx (retry). Bad input must
// therefore never escape as another error, or a bridge would retry garbage forever.

const headerValue = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '1.0',
    '0.3',
    'application/json',
    'application/cloudevents+json',
    'application/cloudevents+json; charset=utf-8',
    'text/plain',
    'dev.knative.apiserver.resource.update',
    'dev.knative.apiserver.ref.add',
    'dev.knative.sources.ping',
    'resource',
    'google.cloud.pubsub.topic.v1.messagePublished',
  ),
);
const headers = fc.dictionary(
  fc.constantFrom('ce-id', 'ce-type', 'ce-source', 'ce-specversion', 'content-type', 'ce-time', 'ce-subject', 'ce-kind', 'Ce-Foo'),
  fc.oneof(headerValue, fc.array(headerValue, { maxLength: 2 })),
);
const podLike = fc.constant(pod('p'));
const jsonish = fc.oneof(
  fc.jsonValue(),
  podLike,
  fc.record({ message: fc.record({ data: fc.oneof(fc.string(), podLike.map(base64Json)) }), subscription: fc.string() }),
  fc.record({ type: fc.constantFrom('ADD', 'UPDATE', 'DELETE', 'X'), body: fc.oneof(fc.jsonValue(), podLike) }),
  fc.record({ id: fc.string(), type: headerValue, source: fc.string(), specversion: headerValue, data: fc.jsonValue() }),
);
const body = fc.oneof(
  jsonish,
  jsonish.map((v) => JSON.stringify(v) ?? ''),
  jsonish.map((v) => Buffer.from(JSON.stringify(v) ?? '')),
  fc.string(),
  fc.uint8Array().map((a) => Buffer.from(a)),
  fc.constant(undefined),
  fc.constant(null),
);

describe('decodeEvent on arbitrary requests', () => {
  it('either decodes or throws a BadEventError with a 4xx, never anything else', () => {
    fc.assert(
      fc.property(headers, body, (h, b) => {
        try {
          decodeEvent({ headers: h, body: b });
        } catch (e) {
          expect(e).toBeInstanceOf(BadEventError);
          expect([400, 415, 422]).toContain((e as BadEventError).status);
          expect((e as BadEventError).message).not.toBe('');
        }
      }),
      { numRuns: 2000 },
    );
  });
});
