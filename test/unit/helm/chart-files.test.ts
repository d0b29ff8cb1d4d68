// The chart's generated files are what `npm run infra:generate` writes now. (That standalone
// routes watch events as the Knative Triggers do is shared/hosts/standalone/routing.test.ts.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readDeclaration, REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { chartFiles } from '../../../infra/helm/chart.js';

const decl = readDeclaration();

describe('the Helm chart', () => {
  it('has the generated templates and values.yaml `npm run infra:generate` writes now (regenerate after editing serverless.yml)', () => {
    for (const [file, text] of Object.entries(chartFiles(decl))) expect(readFileSync(join(REPO_ROOT, file), 'utf8'), file).toBe(text);
  });

  it("watches every Job by default: values.selectors has none for Job, and each kind's selector is rendered only when set", () => {
    const values = parse(readFileSync(join(REPO_ROOT, 'infra', 'helm', 'kube-tidy', 'values.yaml'), 'utf8')) as { selectors: Record<string, unknown> };
    expect(Object.keys(values.selectors).sort()).toEqual(['Pod', 'namespaces']);
    const eventing = readFileSync(join(REPO_ROOT, 'infra', 'helm', 'kube-tidy', 'templates', 'knative', '40-eventing.yaml'), 'utf8');
    for (const kind of ['Pod', 'Job', 'PersistentVolumeClaim'])
      expect(eventing).toContain(`{{- with index .Values.selectors "${kind}" }}\n      selector: {{ toJson . }}\n{{- end }}`);
  });

  it('a changed declaration changes the generated templates (the check can fail)', () => {
    const d = structuredClone(decl);
    d.functions.sweep!.rbac.push({ apiGroups: ['apps'], resources: ['deployments'], verbs: ['delete'] });
    const file = join('infra', 'helm', 'kube-tidy', 'templates', 'standalone', 'rbac.yaml');
    expect(chartFiles(d)[file]).not.toBe(readFileSync(join(REPO_ROOT, file), 'utf8'));
  });
});
