// The codecs of the one ConfigMap store: what a hand-mangled ConfigMap reads as (never quietly
// as empty: what cannot be read is said). (Reads and writes at a resourceVersion:
// test/integration/brakes and the sweep's plans.)
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonDocument, jsonEntries } from './configmap-store.js';

const doc = jsonDocument('state.json', z.object({ n: z.number() }), () => ({ n: 0 }));
const entries = jsonEntries(z.object({ at: z.number() }));

describe('jsonDocument', () => {
  const rows: { sentence: string; data: Record<string, string> | undefined; want: { n: number }; why?: RegExp }[] = [
    { sentence: 'no ConfigMap reads as empty, nothing unreadable', data: undefined, want: { n: 0 } },
    { sentence: 'a ConfigMap without the key is unreadable', data: { other: '1' }, want: { n: 0 }, why: /^missing$/ },
    { sentence: 'text that is not JSON is unreadable', data: { 'state.json': '{oops' }, want: { n: 0 }, why: /^not JSON/ },
    { sentence: 'JSON that fails the schema is unreadable, with the field', data: { 'state.json': '{"n":"1"}' }, want: { n: 0 }, why: /^n: / },
    { sentence: 'a good document reads as written', data: { 'state.json': '{"n":3}' }, want: { n: 3 } },
  ];
  for (const row of rows)
    it(row.sentence, () => {
      const got = doc.decode(row.data);
      expect(got.value).toEqual(row.want);
      expect(got.unreadable.map((u) => u.why)).toEqual(row.why ? [expect.stringMatching(row.why)] : []);
    });

  it('keeps the start of the unreadable text for the person who mends it', () => {
    const got = doc.decode({ 'state.json': '{"windows": [1,2,' + 'x'.repeat(1000) });
    expect(got.unreadable[0]).toMatchObject({ key: 'state.json', excerpt: expect.stringMatching(/^\{"windows": \[1,2,x+$/) });
    expect(got.unreadable[0]!.excerpt.length).toBe(200);
  });

  it('writes the document under its key', () => expect(doc.encode({ n: 2 })).toEqual({ 'state.json': '{"n":2}' }));
});

describe('jsonEntries', () => {
  it('keeps each good entry and says which are mangled', () => {
    const { value: got, unreadable } = entries.decode({ a: '{"at":1}', b: 'nope', c: '{"at":"x"}', constructor: '{"at":2}' });
    expect(unreadable.map((u) => u.key)).toEqual(['b', 'c']);
    expect([...got]).toEqual([
      ['a', { at: 1 }],
      ['constructor', { at: 2 }],
    ]);
    expect(got.get('toString')).toBeUndefined();
  });

  it('writes one JSON entry per key', () => expect(entries.encode(new Map([['p', { at: 5 }]]))).toEqual({ p: '{"at":5}' }));
});
