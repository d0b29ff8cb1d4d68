// The repository stands alone: no file under it reads a path outside its tree. A clone has
// nothing beside it, so a path that climbs above the root works only where some other layout
// happens to put a folder there (as the harness's old `sharedCrdsDir`, reading a folder beside
// the checkout, did for eleven integration files, found by a newcomer's first `npm test`). Grepping for one folder's
// name misses the next; this counts instead: how deep a path starts and how far it climbs.
//
// - TypeScript and JavaScript are parsed. A string (or a template's first text) that starts with
//   `..` is taken relative to its file's folder (imports, `new URL(x, import.meta.url)`,
//   `join(import.meta.dirname, x)`), or to the repository's root, where `npm test` runs, when it
//   is an argument of a file-system call or the first of `resolve`. `resolve`/`join` chains are
//   followed from what they start at: the file's folder (`import.meta.dirname`, `__dirname`,
//   `dirname(fileURLToPath(import.meta.url))`), `process.cwd()`, a constant of the file built
//   from those, or an imported root (`ROOT`, `REPO_ROOT`, `repoRoot`, `DOCS_ROOT`).
// - Other text (Markdown, YAML, JSON, shell) is read for runs of `../` from the file's folder.
import { posix } from 'node:path';
import ts from 'typescript';

export interface Escape {
  file: string;
  line: number;
  text: string;
  why: string;
}

/** How deep a path is below the root, and whether it names a file (dirname keeps the depth). */
interface Place {
  depth: number;
  file: boolean;
}

const PATH_CALLS = new Set(['resolve', 'join', 'normalize']);
const FS_CALLS =
  /^(readFileSync|readFile|readdirSync|readdir|existsSync|statSync|stat|lstatSync|createReadStream|openSync|open|opendirSync|copyFileSync|cpSync|cp|realpathSync|accessSync|access|watch)$/;
const IMPORTED_ROOTS = /^(ROOT|REPO_ROOT|repoRoot|DOCS_ROOT|root)$/;
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const BINARY = /\.(png|jpg|jpeg|gif|ico|zip|gz|tgz|woff2?|sum)$/;

/** The folder depth of a repository-relative file: `a/b/c.ts` is 2 deep. */
export const depthOf = (file: string) =>
  posix
    .dirname(file)
    .split('/')
    .filter((s) => s && s !== '.').length;

/** Applies path segments to a place; the lowest depth reached on the way, and where it ends. */
function walk(from: Place, segments: string[]): { place: Place; lowest: number } {
  // join(fileURLToPath(import.meta.url), '..') is the file's folder: the first `..` drops the name.
  let depth = from.depth + (from.file ? 1 : 0);
  let lowest = depth;
  for (const s of segments.flatMap((x) => x.split('/'))) {
    if (s === '..') lowest = Math.min(lowest, --depth);
    else if (s && s !== '.') depth++;
  }
  return { place: { depth, file: false }, lowest };
}

const literalText = (n: ts.Node): string | undefined =>
  ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) ? n.text : ts.isTemplateExpression(n) ? n.head.text : undefined;

const calleeName = (call: ts.CallExpression): string | undefined => {
  const c = call.expression;
  return ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : undefined;
};

const isImportMeta = (n: ts.Node, prop: string) =>
  ts.isPropertyAccessExpression(n) && ts.isMetaProperty(n.expression) && n.expression.keywordToken === ts.SyntaxKind.ImportKeyword && n.name.text === prop;

/** Where the constants of a file built from paths point, evaluated lazily. */
class Places {
  private readonly consts = new Map<string, ts.Expression>();
  private readonly seen = new Map<string, Place | undefined>();

  constructor(
    source: ts.SourceFile,
    private readonly fileDepth: number,
  ) {
    const visit = (n: ts.Node) => {
      if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer) this.consts.set(n.name.text, n.initializer);
      ts.forEachChild(n, visit);
    };
    visit(source);
  }

  /** The place an expression names, when it is built from something this file knows. */
  of(e: ts.Expression): Place | undefined {
    if (ts.isParenthesizedExpression(e)) return this.of(e.expression);
    if (isImportMeta(e, 'url') || isImportMeta(e, 'filename') || (ts.isIdentifier(e) && e.text === '__filename')) return { depth: this.fileDepth, file: true };
    if (isImportMeta(e, 'dirname') || (ts.isIdentifier(e) && e.text === '__dirname')) return { depth: this.fileDepth, file: false };
    if (ts.isIdentifier(e)) return this.named(e.text);
    if (ts.isNewExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === 'URL') return this.url(e.arguments ?? ts.factory.createNodeArray());
    if (ts.isCallExpression(e)) return this.call(e);
    return undefined;
  }

  private named(name: string): Place | undefined {
    if (this.seen.has(name)) return this.seen.get(name);
    this.seen.set(name, undefined); // a constant defined by itself names nothing
    const init = this.consts.get(name);
    const place = init ? this.of(init) : IMPORTED_ROOTS.test(name) ? { depth: 0, file: false } : undefined;
    this.seen.set(name, place);
    return place;
  }

  private url(args: ts.NodeArray<ts.Expression>): Place | undefined {
    const [rel, base] = args;
    const text = rel && literalText(rel);
    const from = base && this.of(base);
    // Relative to a file URL is relative to its folder; a folder URL here always ends in `/`.
    return text === undefined || !from ? undefined : walk({ depth: from.depth, file: false }, [text]).place;
  }

  private call(e: ts.CallExpression): Place | undefined {
    const name = calleeName(e);
    const [first] = e.arguments;
    if (name === 'cwd') return { depth: 0, file: false };
    if (name === 'fileURLToPath' && first) return this.of(first);
    if (name === 'dirname' && first) {
      const p = this.of(first);
      return p && (p.file ? { depth: p.depth, file: false } : { depth: p.depth - 1, file: false });
    }
    if (!name || !PATH_CALLS.has(name) || !first) return undefined;
    const chain = this.chain(e);
    return chain && chain.complete ? chain.place : undefined;
  }

  /** A resolve/join chain: where it starts, the lowest it reaches, and whether every part was known. */
  chain(e: ts.CallExpression): { place: Place; lowest: number; complete: boolean } | undefined {
    const [first, ...rest] = e.arguments;
    const start = first && this.of(first);
    if (!start) return undefined;
    const known: string[] = [];
    for (const a of rest) {
      const t = literalText(a);
      if (t === undefined) return { ...walk(start, known), complete: false };
      known.push(t);
      if (!ts.isStringLiteral(a) && !ts.isNoSubstitutionTemplateLiteral(a)) return { ...walk(start, known), complete: false };
    }
    return { ...walk(start, known), complete: true };
  }
}

/** Whether a literal is read from where the process runs (the root) rather than from its file. */
function cwdRelative(lit: ts.Node): boolean {
  const call = lit.parent;
  if (!call || !ts.isCallExpression(call) || !call.arguments.includes(lit as ts.Expression)) return false;
  const name = calleeName(call);
  return (name === 'resolve' && call.arguments[0] === lit) || (name !== undefined && FS_CALLS.test(name));
}

function climbs(text: string): number {
  return walk({ depth: 0, file: false }, [text]).lowest * -1;
}

/** Every path a TypeScript or JavaScript file builds that climbs above the repository's root. */
export function codeEscapes(file: string, code: string): Escape[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const depth = depthOf(file);
  const places = new Places(source, depth);
  const found: Escape[] = [];
  const report = (n: ts.Node, why: string) =>
    found.push({ file, line: source.getLineAndCharacterOfPosition(n.getStart()).line + 1, text: n.getText().slice(0, 120), why });
  const visit = (n: ts.Node) => {
    const text = literalText(n);
    if (text !== undefined && /^\.\.(\/|$)/.test(text)) {
      const from = cwdRelative(n) ? 0 : depth;
      const up = climbs(text);
      if (up > from) report(n, `climbs ${up} folder(s) from ${from ? `a folder ${from} deep` : 'the root'}`);
    }
    if (ts.isCallExpression(n) && PATH_CALLS.has(calleeName(n) ?? '')) {
      const chain = places.chain(n);
      if (chain && chain.lowest < 0) report(n, `a path built from a known place climbs ${-chain.lowest} above the root`);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

/** Every run of `../` in other text (a Markdown link, a shell `cd`, a JSON `extends`) that leaves the root. */
export function textEscapes(file: string, text: string): Escape[] {
  const depth = depthOf(file);
  const found: Escape[] = [];
  text.split('\n').forEach((line, i) => {
    // A run of `..` that starts a path: after a space, a quote, a bracket, `=`, `:` or a comma, or
    // after `$(dirname "$0")/` and its kin; `a/../b` goes nowhere and is not counted.
    for (const m of line.matchAll(/(?<=^|[\s"'`([=:,]|[)}]\/)((?:\.\.\/)*\.\.)(?=[/\s"'`)\]#,;]|$)/g)) {
      const up = climbs(m[1]!);
      if (up > depth) found.push({ file, line: i + 1, text: line.trim().slice(0, 120), why: `climbs ${up} folder(s) from a folder ${depth} deep` });
    }
  });
  return found;
}

/** The escapes of one repository-relative file, by its kind. */
export function escapesOf(file: string, content: string): Escape[] {
  if (BINARY.test(file) || content.includes('\0')) return [];
  return CODE.test(file) ? codeEscapes(file, content) : textEscapes(file, content);
}
