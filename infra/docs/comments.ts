// A variable's meaning is written once, where its schema declares it: the comment above the
// property (`/** ... */` or `// ...`). This reads those comments with the TypeScript parser,
// so the reference says what the code says and nothing is kept twice.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const ENV_NAME = /^[A-Z][A-Z0-9_]+$/;

/** The comment text of a `/** *\/` or `//` comment, markers and line breaks removed. */
export function commentText(raw: string): string {
  return raw
    .replace(/^\/\*\*?/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((l) => l.replace(/^\s*(\*(?!\/)|\/\/)\s?/, '').trim())
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Every UPPER_CASE property of an object literal in `file` -> the comment right above it (first declaration wins). */
export function declaredComments(file: string): Map<string, string> {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) && ENV_NAME.test(node.name.text)) {
      const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
      const words = ranges.map((r) => commentText(text.slice(r.pos, r.end))).join(' ');
      if (words && !out.has(node.name.text)) out.set(node.name.text, words);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}
