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

/** Parses JSON text, naming what was being parsed when it fails. */
export function parseJson(text: string, what: string): unknown {
  if (text.trim() === '') throw new BadEventError(400, `${what} is empty`);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new BadEventError(400, `${what} is not valid JSON: ${(e as Error).message}`);
  }
}

/** The body as a JSON value, whatever form express left it in. Empty bodies are an error. */
export function bodyJson(body: unknown, what = 'body'): unknown {
  if (body === undefined || body === null) throw new BadEventError(400, `${what} is empty`);
  const text = bodyText(body, what);
  return text === undefined ? body : parseJson(text, what);
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
