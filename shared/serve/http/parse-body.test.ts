import { describe, expect, it } from 'vitest';
import { MAX_FORM_FIELDS, parseBody, parseMediaType, planBody } from './parse-body.js';
import { BadRequestError } from '../resolve.js';

// The body as the production server parses it (node-http.test.ts compares whole answers with
// functions-framework's); here the parts no answer shows.

describe('parseMediaType', () => {
  it.each([
    ['application/json', 'application/json', {}],
    [' Application/JSON ;Charset = "UTF-8" ', 'application/json', { charset: 'UTF-8' }],
    ['text/plain; charset=utf-8; charset=latin1', 'text/plain', { charset: 'utf-8' }],
    ['text/plain; a; charset=x', 'text/plain', { charset: 'x' }],
    ['text/plain; q="a;\\"b"; charset=y', 'text/plain', { q: 'a;"b', charset: 'y' }],
    ['text/plain; charset="unclosed', 'text/plain', {}],
    ['application/json;', 'application/json', {}],
  ])('%j -> %s %j', (header, type, params) => {
    expect(parseMediaType(header)).toEqual({ type, params });
  });

  it.each(['', 'application', 'app.lication/json', 'application/js on', '/json', 'application/', 'a/b/c', '+a/b', `${'a'.repeat(128)}/b`])(
    '%j is no media type',
    (header) => {
      expect(parseMediaType(header)).toBeUndefined();
    },
  );
});

describe('planBody and parseBody', () => {
  const plan = (headers: Record<string, string>) => planBody({ 'content-length': '1', ...headers });

  it('reads no body when none is said to come, whatever the type', () => {
    expect(planBody({ 'content-type': 'application/json' })).toEqual({ read: false });
    expect(planBody({ 'content-type': 'application/json', 'transfer-encoding': 'chunked' })).toMatchObject({ read: true, as: 'json' });
  });

  it('refuses a charset JSON cannot be in before a byte is read', () => {
    const refused = plan({ 'content-type': 'application/json; charset=iso-8859-1' });
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused).toMatchObject({ status: 415, message: 'unsupported charset "ISO-8859-1"' });
  });

  it('keeps a form field named __proto__ a field, and a repeated one a list', () => {
    const form = parseBody({ read: true, as: 'form', charset: 'utf-8' }, Buffer.from('__proto__=x&a=1&a=2')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(form)).toBe(Object.prototype);
    expect(Object.entries(form)).toEqual([
      ['__proto__', 'x'],
      ['a', ['1', '2']],
    ]);
  });

  it(`refuses a form of more than ${MAX_FORM_FIELDS} fields with 413`, () => {
    const fields = Array.from({ length: MAX_FORM_FIELDS + 1 }, (_, i) => `f${i}=1`).join('&');
    expect(() => parseBody({ read: true, as: 'form', charset: 'utf-8' }, Buffer.from(fields))).toThrow(expect.objectContaining({ status: 413 }));
    expect(Object.keys(parseBody({ read: true, as: 'form', charset: 'utf-8' }, Buffer.from(fields.replace(/&f1000=1$/, ''))) as object)).toHaveLength(
      MAX_FORM_FIELDS,
    );
  });
});
