// serverless.yml stays true: it names exactly the registered functions, what it claims about
// runtimes and platforms holds, and the generated manifests are current and say the same.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { BUNDLE_FILE, BUNDLE_TARGET } from '../../../infra/bundle/build.js';
import { DECLARATION_FILE, readDeclaration, REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { generatedFiles } from '../../../infra/knative/generate.js';
import { mismatches } from './consistency.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tampering with parsed YAML
type Any = any;

const decl = readDeclaration();
const text = readFileSync(DECLARATION_FILE, 'utf8');

/** The keys of `export const TARGETS = {...}` in functions/index.ts, read from its syntax tree
 *  (importing it would pull in every function's dependencies). */
function registeredTargets(): string[] {
  const file = join(REPO_ROOT, 'functions', 'index.ts');
  const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  for (const stmt of src.statements) {
    if (!ts.isVariableStatement(stmt)) continue;
    for (const d of stmt.declarationList.declarations) {
      if (!ts.isIdentifier(d.name) || d.name.text !== 'TARGETS' || !d.initializer) continue;
      let init: ts.Expression = d.initializer;
      while (ts.isAsExpression(init) || ts.isSatisfiesExpression(init)) init = init.expression;
      if (!ts.isObjectLiteralExpression(init)) throw new Error('TARGETS is not an object literal');
      return init.properties.map((p) => (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : '?'));
    }
  }
  throw new Error('functions/index.ts has no TARGETS');
}

const manifests = () => {
  const dir = join(REPO_ROOT, decl.deployment.targets.knative);
  return readdirSync(dir).flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS()));
};

describe('serverless.yml and the registered functions', () => {
  it('names every function functions/index.ts registers, and no other', () => {
    expect(Object.keys(decl.functions).sort()).toEqual(registeredTargets().sort());
  });
});

describe("serverless.yml's claims", () => {
  it('says it is not for `serverless deploy`, and why (v4 is AWS-only, google is 1st gen, knative archived)', () => {
    expect(decl.deployment.serverlessDeploy).toBe(false);
    expect(text).toMatch(/NOT deployable with `serverless deploy`/);
    for (const fact of [/only (to )?AWS|only the aws provider/i, /first-generation/i, /archived/i]) expect(decl.deployment.why).toMatch(fact);
    // A real Serverless Framework file would need a provider name; claiming one would be false.
    expect(decl.provider).not.toHaveProperty('name');
  });

  it('names the runtime the bundle is built for', () => {
    expect(decl.provider.runtime.replace('nodejs', 'node')).toBe(BUNDLE_TARGET);
  });

  it("names the bundle as the entry and a Dockerfile whose every stage is that Node's slim image", () => {
    expect(decl.provider.entry).toBe(relative(REPO_ROOT, BUNDLE_FILE));
    const dockerfile = join(REPO_ROOT, decl.provider.dockerfile);
    expect(existsSync(dockerfile)).toBe(true);
    const froms = [...readFileSync(dockerfile, 'utf8').matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms)
      expect(from).toMatch(new RegExp(`^node:${decl.provider.runtime.slice('nodejs'.length)}(\\.\\d+)*-(bookworm-)?slim(@sha256:[0-9a-f]{64})?$`));
  });

  it('points at deployment targets that exist', () => {
    for (const dir of Object.values(decl.deployment.targets)) expect(existsSync(join(REPO_ROOT, dir)), dir).toBe(true);
  });
});

describe('the generated manifests', () => {
  it('are what `npm run infra:generate` writes now, Knative and GCP (regenerate after editing serverless.yml)', () => {
    const onDisk: Record<string, string> = {};
    for (const dir of Object.values(decl.deployment.targets)) {
      for (const f of readdirSync(join(REPO_ROOT, dir), { recursive: true, withFileTypes: true })) {
        if (f.isFile()) onDisk[relative(REPO_ROOT, join(f.parentPath, f.name))] = readFileSync(join(f.parentPath, f.name), 'utf8');
      }
    }
    expect(onDisk).toEqual(generatedFiles(decl));
  });

  it('give every function its image, target, account, triggers, schedules and delivery', () => {
    expect(mismatches(decl, manifests())).toEqual([]);
  });

  it("watch every Job: no label selector narrows the ApiServerSource's Jobs (jobDeleted passes over those Kueue never queued itself)", () => {
    const source = manifests().find((o: Any) => o.kind === 'ApiServerSource');
    const jobs = source.spec.resources.filter((r: Any) => r.kind === 'Job');
    expect(jobs).toEqual([{ apiVersion: 'batch/v1', kind: 'Job' }]);
    expect(decl.provider.sources.apiserver.resources.find((r) => r.kind === 'Job')).toEqual({ apiVersion: 'batch/v1', kind: 'Job' });
  });

  // The check above must be able to fail: show it each kind of drift.
  for (const [sentence, tamper, expected] of [
    [
      'a Service with another image is caught',
      (o: Any) => o.kind === 'Service' && o.metadata.name === 'pod-terminated' && (o.spec.template.spec.containers[0].image = 'other:1'),
      /runs image other:1/,
    ],
    ['a PingSource on another schedule is caught', (o: Any) => o.kind === 'PingSource' && (o.spec.schedule = '0 * * * *'), /no PingSource with schedule/],
    [
      'a Trigger filtering another kind is caught',
      (o: Any) => o.kind === 'Trigger' && o.metadata.name === 'pod-terminated-pod-update' && (o.spec.filter.attributes.kind = 'Job'),
      /no Trigger filters type dev.knative.apiserver.resource.update and kind Pod/,
    ],
    [
      'a Trigger without a dead-letter sink is caught',
      (o: Any) => o.kind === 'Trigger' && delete o.spec.delivery.deadLetterSink,
      /no retries or no dead-letter/,
    ],
    [
      'a Service with the wrong FUNCTION_TARGET is caught',
      (o: Any) =>
        o.kind === 'Service' &&
        o.metadata.name === 'sweep' &&
        (o.spec.template.spec.containers[0].env.find((e: Any) => e.name === 'FUNCTION_TARGET').value = 'invoke'),
      /FUNCTION_TARGET=invoke/,
    ],
  ] as const) {
    it(sentence, () => {
      const objects = manifests();
      for (const o of objects) tamper(o);
      expect(mismatches(decl, objects).join('\n')).toMatch(expected);
    });
  }
});
