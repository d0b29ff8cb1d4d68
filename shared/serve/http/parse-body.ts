// A request body as kube-tidy's decoders take it, from the bytes the production server read
// (node-http.ts): the forms functions-framework's parsers left it in, so every request gets the
// answer it got when the framework parsed it. JSON for application/json and
// application/cloudevents+json (an object or an array; an empty body is `{}`), text for
// text/plain, the fields of a form, and bytes for any other valid media type. A request with
// no body, or whose Content-Type does not parse, has none (`undefined`): the decoders then
// answer as they did. Pure: the caller reads the bytes (bounded) and writes the answer.
import { BadRequestError } from '../resolve.js';

type Headers = Record<string, string | string[] | undefined>;

/** How the body is to be read, decided on headers alone (before reading it). */
export type BodyPlan = { read: false } | { read: true; as: 'json' | 'text' | 'form'; charset: string } | { read: true; as: 'bytes' };

/** Most fields a form may have (what the framework's parser allowed); past it, 413. */
export const MAX_FORM_FIELDS = 1000;

// RFC 6838 §4.2's restricted names, as the framework's type check read them: a letter or digit,
// then up to 126 more; "." and "+" (facets, suffixes) only in the subtype.
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/**
 * A Content-Type read as leniently as the framework's parsers read it: the media type is what
 * comes before the first ";", without surrounding whitespace, lower-cased, and must be a valid
 * type/subtype (else undefined: no parser takes the body); the parameters are never refused
 * (`name=value` or `name="quoted"` between semicolons; the first of a name counts).
 */
export function parseMediaType(header: string | undefined): { type: string; params: Record<string, string> } | undefined {
  if (!header) return undefined;
  const semi = header.indexOf(';');
  const type = ows(semi === -1 ? header : header.slice(0, semi)).toLowerCase();
  if (!MEDIA_TYPE.test(type)) return undefined;
  const params: Record<string, string> = {};
  for (const [name, value] of parameters(semi === -1 ? '' : header.slice(semi))) {
    if (name && !Object.hasOwn(params, name)) Object.defineProperty(params, name, { value, enumerable: true });
  }
  return { type, params };
}

/** Without the optional whitespace (spaces, tabs) around it. */
const ows = (s: string) => s.replace(/^[ \t]+|[ \t]+$/g, '');

/** `; a=1; b="x;\"y"` -> [a, 1], [b, x;"y]: a backslash takes the next character as it is; an unclosed quote is no value. */
function parameters(tail: string): [string, string][] {
  const out: [string, string][] = [];
  let i = 0;
  while (i < tail.length) {
    // At a ";": the name runs to "=" (a ";" first starts the next parameter).
    const next = tail.indexOf(';', i + 1);
    const eq = tail.indexOf('=', i + 1);
    if (eq === -1 || (next !== -1 && next < eq)) {
      i = next === -1 ? tail.length : next;
      continue;
    }
    const name = ows(tail.slice(i + 1, eq)).toLowerCase();
    let j = eq + 1;
    while (tail[j] === ' ' || tail[j] === '\t') j++;
    if (tail[j] !== '"') {
      const end = tail.indexOf(';', j);
      out.push([name, ows(tail.slice(j, end === -1 ? tail.length : end))]);
      i = end === -1 ? tail.length : end;
      continue;
    }
    let value = '';
    for (j++; j < tail.length && tail[j] !== '"'; j++) value += tail[j] === '\\' && j + 1 < tail.length ? tail[++j] : tail[j];
    if (j < tail.length) out.push([name, value]);
    const end = tail.indexOf(';', j);
    i = end === -1 ? tail.length : end;
  }
  return out;
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** Whether the request says it has a body: a Transfer-Encoding, or a Content-Length that is a number. */
export function hasBody(headers: Headers): boolean {
  return headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(first(headers['content-length'])));
}

/** How to read the body, or the 415 that refuses its charset before a byte is read. */
export function planBody(headers: Headers): BodyPlan | BadRequestError {
  const media = hasBody(headers) ? parseMediaType(first(headers['content-type'])) : undefined;
  if (!media) return { read: false };
  const as =
    media.type === 'application/json' || media.type === 'application/cloudevents+json'
      ? 'json'
      : media.type === 'text/plain'
        ? 'text'
        : media.type === 'application/x-www-form-urlencoded'
          ? 'form'
          : 'bytes';
  if (as === 'bytes') return { read: true, as };
  const charset = (media.params['charset'] ?? 'utf-8').toLowerCase();
  // JSON is UTF-8, -16 or -32 (RFC 7159 §8.1); a form is UTF-8 or Latin-1; text any charset there is a decoder for.
  const valid = as === 'json' ? charset.startsWith('utf-') : as === 'form' ? charset === 'utf-8' || charset === 'iso-8859-1' : true;
  if (!valid || !decoderFor(charset)) return new BadRequestError(415, `unsupported charset "${charset.toUpperCase()}"`);
  return { read: true, as, charset };
}

function decoderFor(charset: string): { decode(bytes: Uint8Array): string } | undefined {
  try {
    // Not fatal: bytes that are not in the charset become U+FFFD, as the framework decoded them. A BOM is dropped.
    return new TextDecoder(charset);
  } catch {
    return undefined;
  }
}

/** The body read by `plan` from `bytes`, or the 4xx that refuses it. */
export function parseBody(plan: BodyPlan, bytes: Buffer): unknown {
  if (!plan.read) return undefined;
  if (plan.as === 'bytes') return bytes;
  const text = decoderFor(plan.charset)!.decode(bytes);
  if (plan.as === 'text') return text;
  if (plan.as === 'form') return parseForm(text);
  // An empty JSON body is a common client mistake; the framework took it as `{}`.
  if (text.length === 0) return {};
  // Past JSON's own whitespace: the framework took only an object or an array.
  const lead = /^[ \t\n\r]*(.)/s.exec(text)?.[1];
  if (lead !== '{' && lead !== '[')
    throw new BadRequestError(400, `the body is not valid JSON: a JSON body is an object or an array, not one starting ${JSON.stringify(lead ?? '')}`);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new BadRequestError(400, `the body is not valid JSON: ${(e as Error).message}`);
  }
}

/** `a=1&b=2&a=3` -> `{ a: ['1', '3'], b: '2' }`: a repeated field is a list. */
function parseForm(text: string): Record<string, string | string[]> {
  if (text.length === 0) return {};
  const fields = new URLSearchParams(text);
  if ([...fields.keys()].length > MAX_FORM_FIELDS) throw new BadRequestError(413, 'too many parameters');
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of fields) {
    const had = Object.hasOwn(out, name) ? out[name] : undefined;
    // Defined, not assigned: a field named __proto__ stays a field.
    Object.defineProperty(out, name, {
      value: had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
