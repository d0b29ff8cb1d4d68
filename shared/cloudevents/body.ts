import { BadEventError } from './errors.js';

// express hands us an object (json parser), a string (text parser) or a Buffer (raw parser)
// depending on how the function registered it; everything below works on text or values.

// fatal: invalid UTF-8 is a malformed request, not something to decode into U+FFFD and guess.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text when it arrived as bytes or text; `undefined` when already parsed. */
export function bodyText(body: unknown, what = 'body'): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) {
    try {
      return utf8.decode(body);
    } catch {
      throw new BadEventError(400, `${what} is not valid UTF-8`);
    }
  }
  return undefined;
}

/**
 * Deeper than any Kubernetes object or policy nests (managedFields, the deepest, stay under
 * 30): past it, every recursive reader (zod, the YAML library, the core) could overflow the
 * stack on one request.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `value` nests deeper than `max`, walked without recursion. Only objects are kept to
 * walk, their depths beside them: no pair per value (a pod's every string was one, per event).
 */
export function tooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const objects: object[] = [];
  const depths: number[] = [];
  const keep = (v: unknown, depth: number) => {
    if (typeof v === 'object' && v !== null && !(v instanceof Uint8Array)) {
      objects.push(v);
      depths.push(depth);
    }
  };
  keep(value, 0);
  while (objects.length > 0) {
    const v = objects.pop()!;
    const depth = depths.pop()!;
    if (depth >= max) return true;
    if (Array.isArray(v)) for (const child of v) keep(child, depth + 1);
    else for (const key in v) if (Object.hasOwn(v, key)) keep((v as Record<string, unknown>)[key], depth + 1);
  }
  return false;
}

/** Parses JSON text, naming what was being parsed when it fails. */
export function parseJson(text: string, what: string): unknown {
  if (text.trim() === '') throw new BadEventError(400, `${what} is empty`);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    throw new BadEventError(400, `${what} is not valid JSON: ${(e as Error).message}`);
  }
  if (tooDeep(value)) throw new BadEventError(400, `${what} nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

/** The body as a JSON value, whatever form express left it in. Empty bodies are an error. */
export function bodyJson(body: unknown, what = 'body'): unknown {
  if (body === undefined || body === null) throw new BadEventError(400, `${what} is empty`);
  const text = bodyText(body, what);
  if (text !== undefined) return parseJson(text, what);
  if (tooDeep(body)) throw new BadEventError(400, `${what} nests deeper than ${MAX_JSON_DEPTH} levels`);
  return body;
}

/** `application/cloudevents+json; charset=utf-8` -> `application/cloudevents+json`. */
export function mediaType(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const bare = contentType.split(';')[0]?.trim().toLowerCase();
  return bare === '' ? undefined : bare;
}

/** application/json, text/json and any `+json` suffix type. */
export function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || type === 'text/json' || type.endsWith('+json');
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
