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

/** The identifier an initializer starts from: `NamespacesSchema` in `NamespacesSchema.optional()`. */
function rootName(node: ts.Expression): string | undefined {
  let e: ts.Expression = node;
  while (ts.isCallExpression(e) || ts.isPropertyAccessExpression(e)) e = e.expression;
  return ts.isIdentifier(e) ? e.text : undefined;
}

/**
 * Every property of an object literal in `files` -> the comment above it. A property with none
 * takes the comment of the const its value is built from (`namespaces: NamespacesSchema.optional()`
 * takes NamespacesSchema's), found in any of the files. The first file that describes a name wins.
 */
export function fieldComments(files: string[]): Map<string, string> {
  const consts = new Map<string, string>();
  const pending: { name: string; from?: string }[] = [];
  const out = new Map<string, string>();
  const leading = (text: string, node: ts.Node) =>
    (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []).map((r) => commentText(text.slice(r.pos, r.end))).join(' ');
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const visit = (node: ts.Node): void => {
      if (ts.isVariableStatement(node)) {
        // A const's own doc comment only: not a file header or a section comment above it.
        const last = (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []).at(-1);
        const raw = last ? text.slice(last.pos, last.end) : '';
        const words = raw.startsWith('/**') ? commentText(raw) : '';
        for (const d of node.declarationList.declarations) if (words && ts.isIdentifier(d.name)) consts.set(d.name.text, words);
      }
      if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
        const words = leading(text, node);
        if (words && !out.has(node.name.text)) out.set(node.name.text, words);
        else if (!words) pending.push({ name: node.name.text, from: rootName(node.initializer) });
      }
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  }
  for (const { name, from } of pending) if (!out.has(name) && from && consts.has(from)) out.set(name, consts.get(from)!);
  return out;
}
