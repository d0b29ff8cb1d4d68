// What a request path built from validated names can never contain. client-node encodes each
// path parameter with encodeURIComponent, which leaves '.' and '..' alone: a pod named '..'
// turns DELETE .../namespaces/ns/pods/.. into DELETE .../namespaces/ns/ once the URL is
// normalised, which deletes the namespace. Names are validated where they enter
// (model/names.ts); this check is the one place that holds for every client and every call.

const SEGMENT_PROBLEMS: [RegExp, string][] = [
  [/^\.{1,2}$/, "a '.' or '..' segment"],
  [/%2f|%5c|%00|%2e/i, 'an encoded /, \\, . or NUL'],
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  [/[\\\u0000-\u001f\u007f]/, 'a backslash or control character'],
];

// Anything one of the problems above could be (a '.' segment, '//', an encoded character, a
// backslash or control character): a path with none of it is safe without looking closer. One
// test per request instead of three per segment (issue 35: this runs for every request).
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const SUSPECT = /\/\.|\/\/|%|[\\\u0000-\u001f\u007f]/;

/** Why `url` must not be sent, or undefined when its path has the shape its builder meant. */
export function unsafePathProblem(url: string): string | undefined {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split(/[?#]/, 1)[0] ?? '';
  if (!SUSPECT.test(path)) return undefined;
  const segments = path.split('/').slice(1);
  // An empty segment anywhere but at the end ("a//b") means an empty name was put in.
  if (segments.slice(0, -1).some((s) => s === '')) return `${path}: an empty path segment`;
  for (const s of segments) for (const [re, what] of SEGMENT_PROBLEMS) if (re.test(s)) return `${path.slice(0, 200)}: ${what}`;
  return undefined;
}
