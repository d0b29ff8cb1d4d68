import { CloudEvent, HTTP } from 'cloudevents';
import { describe, expect, it } from 'vitest';
import { readRequest } from './http.js';

// Binary mode is read without the SDK's HTTP.toEvent (http.ts binaryAttributes, issue 45):
// the event must be the one the SDK's own path gave (its toEvent of the headers, then the data
// cloned in), attribute for attribute, for the headers senders send and the odd ones.

const base = { 'ce-id': 'a-1', 'ce-source': 'https://10.0.0.1:6443', 'ce-type': 'dev.knative.apiserver.resource.update', 'ce-specversion': '1.0' };
const data = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u-1' } };

const cases: [string, Record<string, string>][] = [
  ['the four required headers and JSON', { ...base, 'content-type': 'application/json' }],
  ['a charset on the content type', { ...base, 'content-type': 'application/json; charset=utf-8' }],
  ['no content type', base],
  [
    'Knative extensions, a subject and a time',
    {
      ...base,
      'content-type': 'application/json',
      'ce-subject': '/apis/v1/namespaces/ns/pods/p',
      'ce-kind': 'Pod',
      'ce-name': 'p',
      'ce-namespace': 'ns',
      'ce-time': '2026-11-29T09:00:00.5Z',
    },
  ],
  ['a time in another zone', { ...base, 'ce-time': '2026-11-29T10:00:00+01:00' }],
  ['a time that is not one (the SDK takes now)', { ...base, 'ce-time': 'yesterday' }],
  ['a dataschema', { ...base, 'ce-dataschema': 'https://example.com/s.json' }],
  ['a datacontenttype header beside the content type', { ...base, datacontenttype: 'text/plain', 'content-type': 'application/json' }],
  ['base64 content encoding on JSON, which the SDK drops', { ...base, 'content-type': 'application/json', 'ce-datacontentencoding': 'base64' }],
  ['headers that are not the event', { ...base, authorization: 'Bearer x.y.z', host: 'kube-tidy', 'content-length': '120' }],
];

/** The event as the SDK's path built it before: toEvent of the headers, the data cloned in. */
const bySdk = (headers: Record<string, string>): CloudEvent<unknown> =>
  (HTTP.toEvent({ headers, body: undefined }) as CloudEvent<unknown>).cloneWith({ data }, false);

const attributes = (e: CloudEvent<unknown>, timeSet: boolean) => {
  const { time, ...rest } = e.toJSON() as Record<string, unknown>;
  return timeSet ? { ...rest, time } : rest;
};

describe('binary-mode attributes as the SDK maps them', () => {
  it.each(cases)('%s', (_name, headers) => {
    const read = readRequest({ headers, body: data });
    expect(read.transport).toBe('binary');
    if (read.transport === 'plain') return;
    // A time the SDK could not read is now: compared only where the sender's time is kept.
    const timeSet = Boolean(headers['ce-time']) && !Number.isNaN(Date.parse(headers['ce-time']!));
    expect(attributes(read.event, timeSet)).toEqual(attributes(bySdk(headers), timeSet));
  });

  it('an attribute the SDK refuses (an empty subject) is still a 400 naming it', () => {
    expect(() => readRequest({ headers: { ...base, 'ce-subject': '' }, body: data })).toThrow(/invalid CloudEvent: subject/);
  });
});
