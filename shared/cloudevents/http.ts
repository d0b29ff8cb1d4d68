import { CloudEvent, HTTP, ValidationError } from 'cloudevents';
import { bodyJson, bodyText, isJsonMediaType, isPlainObject, mediaType, parseJson } from './body.js';
import { BadEventError } from './errors.js';
import type { HttpRequestLike } from './types.js';

// Turns an HTTP request into either a validated CloudEvent or a plain JSON body. The SDK's
// HTTP.toEvent neither validates nor checks for all required attributes (binary mode is
// detected from ce-id alone, and a missing specversion silently defaults to 1.0), so the
// required attributes are checked here first and validate() is called on every event.

const CE_JSON = 'application/cloudevents+json';
const CE_BATCH = 'application/cloudevents-batch+json';
const REQUIRED_HEADERS = ['ce-id', 'ce-source', 'ce-type', 'ce-specversion'] as const;
const REQUIRED_ATTRIBUTES = ['id', 'source', 'type', 'specversion'] as const;

export type ReadRequest = { transport: 'binary' | 'structured'; event: CloudEvent<unknown> } | { transport: 'plain'; body: unknown };

const isStructured = (type: string | undefined) => type?.startsWith('application/cloudevents') === true;
const isBinary = (headers: Record<string, string>) => Object.keys(headers).some((h) => h.startsWith('ce-'));

/** A CloudEvent in either mode, by the rules readRequest uses; the body is not read. */
export function isCloudEventRequest(req: HttpRequestLike): boolean {
  const headers = lowerCaseHeaders(req.headers);
  return isStructured(mediaType(headers['content-type'])) || isBinary(headers);
}

export function readRequest(req: HttpRequestLike): ReadRequest {
  const headers = lowerCaseHeaders(req.headers);
  const type = mediaType(headers['content-type']);
  if (type === CE_BATCH) {
    throw new BadEventError(415, `batched CloudEvents (${CE_BATCH}) are not supported: send one event per request`);
  }
  if (isStructured(type)) {
    if (type !== CE_JSON) {
      throw new BadEventError(415, `structured-mode format ${type} is not supported: use ${CE_JSON}`);
    }
    return { transport: 'structured', event: readStructured(req.body) };
  }
  if (isBinary(headers)) {
    return { transport: 'binary', event: readBinary(headers, type, req.body) };
  }
  if (type !== undefined && !isJsonMediaType(type)) {
    throw new BadEventError(415, `content-type ${type} is not supported: send a JSON body (application/json) or a CloudEvent`);
  }
  return { transport: 'plain', body: bodyJson(req.body) };
}

// Node lower-cases header names already, but tests and other callers may not; a repeated
// header arrives as an array and the first value is the one the sender meant.
function lowerCaseHeaders(headers: HttpRequestLike['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') out[name.toLowerCase()] = first;
  }
  return out;
}

function readStructured(body: unknown): CloudEvent<unknown> {
  const value = bodyJson(body, 'structured CloudEvent body');
  if (!isPlainObject(value)) throw new BadEventError(400, 'structured CloudEvent body must be a JSON object');
  const missing = REQUIRED_ATTRIBUTES.filter((a) => value[a] === undefined || value[a] === null || value[a] === '');
  if (missing.length > 0) {
    throw new BadEventError(400, `structured CloudEvent is missing required attribute${plural(missing)} ${missing.join(', ')}`);
  }
  checkSpecVersion(value['specversion']);
  // The bare media type: the SDK looks its parser up by the exact header value, so a
  // `; charset=utf-8` suffix would make it refuse the event.
  const event = toEvent({ headers: { 'content-type': CE_JSON }, body: value });
  // `data_base64` comes back as one byte per Uint32Array element; give decoders JSON.
  if (!ArrayBuffer.isView(event.data)) return event;
  const bytes = Buffer.from(Array.from(event.data as Uint32Array));
  const ct = mediaType(event.datacontenttype);
  const text = bodyText(bytes, 'data_base64');
  const data = ct === undefined || isJsonMediaType(ct) ? parseJson(text ?? '', 'data_base64 (decoded)') : text;
  return event.cloneWith({ data, data_base64: undefined }, false);
}

function readBinary(headers: Record<string, string>, type: string | undefined, body: unknown): CloudEvent<unknown> {
  const missing = REQUIRED_HEADERS.filter((h) => !headers[h]);
  if (missing.length > 0) {
    throw new BadEventError(400, `binary-mode CloudEvent is missing header${plural(missing)} ${missing.join(', ')}`);
  }
  checkSpecVersion(headers['ce-specversion']);
  if (type !== undefined && !isJsonMediaType(type) && type !== 'text/plain') {
    throw new BadEventError(415, `data content type ${type} is not supported: CloudEvent data must be JSON`);
  }
  // Data is parsed here, not by the SDK: its JSON parser turns text that is not JSON into a
  // string instead of failing, which would hide a broken sender behind a schema error.
  const text = bodyText(body);
  let data: unknown = body;
  if (text !== undefined) {
    if (text.trim() === '') data = undefined;
    else data = type === 'text/plain' ? text : parseJson(text, 'CloudEvent data (request body)');
  }
  return validated(() => new CloudEvent({ ...binaryAttributes(headers), ...(data === undefined ? {} : { data }) }, false));
}

/**
 * The attributes binary mode carries, mapped as the SDK's HTTP.toEvent maps them (v1: its
 * parseBinary), from headers already lower-cased: each `ce-<name>` is attribute <name> (an
 * extension when the spec names no such attribute), ce-time as its DateParser reads it, the
 * content type as datacontenttype. The SDK's own path lower-cased and copied the headers twice
 * and built the event twice (its attributes, then a clone with the data): a tenth of a storm
 * event's decoding (issue 45, item 6). The event is validated by the SDK all the same.
 */
function binaryAttributes(headers: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) if (name.startsWith('ce-')) out[name.slice(3)] = value;
  // As the SDK's DateParser reads it; one it cannot read (or an empty one) is left to the event's default, now, as there.
  const time = headers['ce-time'] ? Date.parse(headers['ce-time']) : NaN;
  if (Number.isNaN(time)) delete out.time;
  else out.time = new Date(time).toISOString();
  const contentType = headers['content-type'] || headers['datacontenttype'];
  if (contentType) out.datacontenttype = contentType;
  if (out.datacontenttype === 'application/json' && out.datacontentencoding === 'base64') delete out.datacontentencoding;
  return out;
}

function checkSpecVersion(version: unknown): void {
  if (version !== '1.0') {
    throw new BadEventError(400, `unsupported CloudEvents specversion ${JSON.stringify(version)}: only 1.0 is accepted`);
  }
}

function toEvent(message: { headers: Record<string, string>; body: unknown }): CloudEvent<unknown> {
  return validated(() => HTTP.toEvent(message));
}

/** The event `build` makes, validated; anything it or the validation throws is a 400. */
function validated(build: () => unknown): CloudEvent<unknown> {
  let event: unknown;
  try {
    event = build();
  } catch (e) {
    throw new BadEventError(400, `not a valid CloudEvent: ${describeSdkError(e)}`);
  }
  if (!(event instanceof CloudEvent)) throw new BadEventError(400, 'not a single CloudEvent');
  try {
    event.validate();
  } catch (e) {
    if (e instanceof ValidationError) throw new BadEventError(400, 'invalid CloudEvent', sdkIssues(e));
    throw new BadEventError(400, `invalid CloudEvent: ${describeSdkError(e)}`);
  }
  return event as CloudEvent<unknown>;
}

// ValidationError carries ajv's error objects; its message is a JSON dump of them, so say
// the same thing in the `field: problem` form every other error here uses.
function sdkIssues(e: ValidationError): string[] {
  const errors = (e.errors ?? []) as unknown[];
  if (errors.length === 0) return [e.message];
  return errors.map((err) => {
    if (!isPlainObject(err)) return String(err);
    const params = isPlainObject(err['params']) ? err['params'] : {};
    if (typeof params['missingProperty'] === 'string') return `${params['missingProperty']}: required`;
    const field = String(err['instancePath'] ?? '')
      .replace(/^\//, '')
      .replace(/\//g, '.');
    return `${field || '(event)'}: ${String(err['message'] ?? 'invalid')}`;
  });
}

function describeSdkError(e: unknown): string {
  return e instanceof Error ? (e.message.split('\n')[0] ?? e.message) : String(e);
}

function plural(items: readonly unknown[]): string {
  return items.length > 1 ? 's' : '';
}
