// The chart's generated files are what `npm run infra:generate` writes now, and the
// standalone process routes watch events to the same functions the Knative Triggers do.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDeclaration, REPO_ROOT } from '../../../infra/knative/declaration.js';
import { chartFiles } from '../../../infra/helm/chart.js';
import { ROUTES } from '../../../shared/standalone/routes.js';

const decl = readDeclaration();

describe('the Helm chart', () => {
  it('has the generated templates and values.yaml `npm run infra:generate` writes now (regenerate after editing serverless.yml)', () => {
    for (const [file, text] of Object.entries(chartFiles(decl))) expect(readFileSync(join(REPO_ROOT, file), 'utf8'), file).toBe(text);
  });

  it('a changed declaration changes the generated templates (the check can fail)', () => {
    const d = structuredClone(decl);
    d.functions.sweep!.rbac.push({ apiGroups: ['apps'], resources: ['deployments'], verbs: ['delete'] });
    const file = join('infra', 'helm', 'kube-tidy', 'templates', 'standalone', 'rbac.yaml');
    expect(chartFiles(d)[file]).not.toBe(readFileSync(join(REPO_ROOT, file), 'utf8'));
  });
});

describe('standalone routes', () => {
  it('deliver each watch event to the functions whose Knative Triggers take it', () => {
    const declared = Object.entries(decl.functions).flatMap(([target, f]) =>
      f.events.flatMap((e) => ('cloudEvent' in e ? [{ verb: e.cloudEvent.type.split('.').pop(), kind: e.cloudEvent.kind, target }] : [])),
    );
    const key = (r: { verb?: string; kind: string; target: string }) => `${r.verb} ${r.kind} ${r.target}`;
    expect(ROUTES.map(key).sort()).toEqual(declared.map(key).sort());
  });
});
