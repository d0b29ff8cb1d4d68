// The chart's knative-mode check (templates/checks.yaml) names the Knative kinds the mode
// creates: the list in _helpers.tpl is the one infra/knative/manifests has, so a kind added
// to the manifests is checked for too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDeclaration, REPO_ROOT } from '../../../infra/declaration/declaration.js';
import { renderKnative } from '../../../infra/knative/render.js';

const helpers = readFileSync(join(REPO_ROOT, 'infra/helm/kube-tidy/templates/_helpers.tpl'), 'utf8');

function checkedKinds(text: string): string[] {
  const m = /\{\{- define "kube-tidy\.knative\.kinds" -\}\}\n(.*)\n\{\{- end \}\}/.exec(text);
  if (!m) throw new Error('no kube-tidy.knative.kinds in _helpers.tpl');
  return m[1]!.trim().split(' ');
}

describe("the chart's knative-mode check", () => {
  it('requires exactly the Knative kinds of infra/knative/manifests', () => {
    const objects = Object.values(renderKnative(readDeclaration())).flat() as { apiVersion: string; kind: string }[];
    const knative = [...new Set(objects.filter((o) => o.apiVersion.includes('knative.dev')).map((o) => `${o.apiVersion}/${o.kind}`))];
    expect(checkedKinds(helpers).sort()).toEqual(knative.sort());
  });

  it('a kind missing from the list is noticed (the check can fail)', () => {
    const fewer = helpers.replace(' sources.knative.dev/v1/PingSource', '');
    const objects = Object.values(renderKnative(readDeclaration())).flat() as { apiVersion: string; kind: string }[];
    const knative = [...new Set(objects.filter((o) => o.apiVersion.includes('knative.dev')).map((o) => `${o.apiVersion}/${o.kind}`))];
    expect(checkedKinds(fewer).sort()).not.toEqual(knative.sort());
  });
});
