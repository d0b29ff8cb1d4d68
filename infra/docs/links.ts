// Relative links and #anchors in the repository's Markdown: a link to a file must name one that
// exists, a #anchor a heading of the Markdown file it points into (GitHub's heading ids). URLs
// are not followed. Text inside code spans and fenced blocks is not a link.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const FENCE = /^\s*(```|~~~)/;

/** GitHub's id for a heading: lower case, markup and punctuation dropped, spaces to dashes. */
export const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[`*_~]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');

/** Lines outside fenced blocks, with their 1-based numbers. */
function prose(text: string): { line: string; n: number }[] {
  let fenced = false;
  const out: { line: string; n: number }[] = [];
  text.split('\n').forEach((line, i) => {
    if (FENCE.test(line)) fenced = !fenced;
    else if (!fenced) out.push({ line, n: i + 1 });
  });
  return out;
}

/** Every anchor a Markdown text defines: its headings' ids (a repeated one gets -1, -2, ...) and `<a name|id="...">`. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { line } of prose(text)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const s = slug(h[1]!);
    const n = seen.get(s) ?? 0;
    out.add(n ? `${s}-${n}` : s);
    seen.set(s, n + 1);
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(m[1]!);
  return out;
}

/** Every link target in prose (inline links, images, and reference definitions), with its line. */
export function linksOf(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  for (const { line, n } of prose(text)) {
    const bare = line.replace(/`[^`]*`/g, '');
    for (const m of bare.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)) out.push({ target: m[1]!, line: n });
    const def = /^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)/.exec(bare);
    if (def) out.push({ target: def[1]!, line: n });
  }
  return out;
}

/** `file:line target (why)` for every relative link or anchor in `files` (relative to `root`) that points nowhere. */
export function brokenLinks(root: string, files: string[]): string[] {
  const cache = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    if (!cache.has(file)) cache.set(file, anchorsOf(readFileSync(join(root, file), 'utf8')));
    return cache.get(file)!;
  };
  const broken: string[] = [];
  for (const file of files) {
    for (const { target, line } of linksOf(readFileSync(join(root, file), 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const [path = '', anchor] = target.split('#');
      const to = path ? normalize(join(dirname(file), decodeURIComponent(path))) : file;
      if (path && !existsSync(join(root, to))) broken.push(`${file}:${line} ${target} (no such file)`);
      else if (anchor && to.endsWith('.md') && !anchors(to).has(decodeURIComponent(anchor).toLowerCase()))
        broken.push(`${file}:${line} ${target} (no such heading)`);
    }
  }
  return broken;
}
