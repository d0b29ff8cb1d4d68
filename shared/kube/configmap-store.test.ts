// The codecs of the one ConfigMap store: what a hand-mangled ConfigMap reads as. (Reads and
// writes at a resourceVersion: test/integration/brakes and the sweep's plans.)
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonDocument, jsonEntries } from './configmap-store.js';

const doc = jsonDocument('state.json', z.object({ n: z.number() }), () => ({ n: 0 }));
const entries = jsonEntries(z.object({ at: z.number() }));

describe('jsonDocument', () => {
  const rows: { sentence: string; data: Record<string, string> | undefined; want: { n: number } }[] = [
    { sentence: 'no ConfigMap reads as empty', data: undefined, want: { n: 0 } },
    { sentence: 'a ConfigMap without the key reads as empty', data: { other: '1' }, want: { n: 0 } },
    { sentence: 'text that is not JSON reads as empty', data: { 'state.json': '{oops' }, want: { n: 0 } },
    { sentence: 'JSON that fails the schema reads as empty', data: { 'state.json': '{"n":"1"}' }, want: { n: 0 } },
    { sentence: 'a good document reads as written', data: { 'state.json': '{"n":3}' }, want: { n: 3 } },
  ];
  for (const row of rows) it(row.sentence, () => expect(doc.decode(row.data)).toEqual(row.want));

  it('writes the document under its key', () => expect(doc.encode({ n: 2 })).toEqual({ 'state.json': '{"n":2}' }));
});

describe('jsonEntries', () => {
  it('keeps each good entry and leaves out the mangled ones', () => {
    const got = entries.decode({ a: '{"at":1}', b: 'nope', c: '{"at":"x"}', constructor: '{"at":2}' });
    expect([...got]).toEqual([
      ['a', { at: 1 }],
      ['constructor', { at: 2 }],
    ]);
    expect(got.get('toString')).toBeUndefined();
  });

  it('writes one JSON entry per key', () => expect(entries.encode(new Map([['p', { at: 5 }]]))).toEqual({ p: '{"at":5}' }));
});
