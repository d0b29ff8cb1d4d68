import { describe, expect, it } from 'vitest';
import { API_SERVER, base64Json, binaryHeaders, pod } from '../../test/fixtures/events/requests.js';
import { readRequest } from './http.js';

const thePod = pod('job-a-x1');
const attrs = { id: 'e-1', source: API_SERVER, type: 'dev.knative.apiserver.resource.update', specversion: '1.0' };

describe('readRequest: how express may hand over a request', () => {
  it('binary headers in mixed case are found (callers other than Node may not lower-case them)', () => {
    const headers = Object.fromEntries(Object.entries(binaryHeaders()).map(([k, v]) => [k.toUpperCase(), v]));
    const read = readRequest({ headers, body: thePod });
    expect(read.transport).toBe('binary');
    expect(read.transport !== 'plain' && read.event.data).toEqual(thePod);
  });

  it('a repeated header given as an array uses its first value', () => {
    const read = readRequest({ headers: { ...binaryHeaders(), 'ce-id': ['first', 'second'] }, body: thePod });
    expect(read.transport !== 'plain' && read.event.id).toBe('first');
  });

  it('binary extensions such as ce-kind become event attributes', () => {
    const read = readRequest({ headers: binaryHeaders({ 'ce-kind': 'Pod', 'ce-namespace': 'ml' }), body: JSON.stringify(thePod) });
    expect(read.transport !== 'plain' && read.event).toMatchObject({ kind: 'Pod', namespace: 'ml' });
  });

  it('binary data sent as a Buffer with a charset is parsed as JSON', () => {
    const headers = binaryHeaders({ 'content-type': 'application/json; charset=utf-8' });
    const read = readRequest({ headers, body: Buffer.from(JSON.stringify(thePod)) });
    expect(read.transport !== 'plain' && read.event.data).toEqual(thePod);
  });

  it('binary text/plain data (a PingSource configured with text) stays a string', () => {
    const headers = binaryHeaders({ 'ce-type': 'dev.knative.sources.ping', 'content-type': 'text/plain' });
    const read = readRequest({ headers, body: 'sweep now' });
    expect(read.transport !== 'plain' && read.event.data).toBe('sweep now');
  });

  it('a structured event with a charset parameter is still structured mode', () => {
    const read = readRequest({
      headers: { 'content-type': 'application/cloudevents+json; charset=utf-8' },
      body: Buffer.from(JSON.stringify({ ...attrs, data: thePod })),
    });
    expect(read.transport).toBe('structured');
    expect(read.transport !== 'plain' && read.event.data).toEqual(thePod);
  });

  it('a structured event with data_base64 has its decoded JSON as data', () => {
    const read = readRequest({
      headers: { 'content-type': 'application/cloudevents+json' },
      body: JSON.stringify({ ...attrs, datacontenttype: 'application/json', data_base64: base64Json(thePod) }),
    });
    expect(read.transport !== 'plain' && read.event.data).toEqual(thePod);
  });

  it('a body without CloudEvent headers is plain, whatever JSON it holds', () => {
    expect(readRequest({ headers: {}, body: '{"a":1}' })).toEqual({ transport: 'plain', body: { a: 1 } });
  });
});
