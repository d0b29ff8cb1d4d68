// `npm run infra:generate`: writes the Knative manifests (and the GCP specs) from
// serverless.yml. The files are committed so a reviewer reads exactly what is applied; a
// unit test fails when they are stale.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { readDeclaration, REPO_ROOT, type Declaration } from '../declaration/declaration.js';
import { renderKnative } from './render.js';
import { renderGcp } from '../gcp/render.js';
import { deployScript } from '../gcp/script.js';
import { writeChart } from '../helm/chart.js';

export const HEADER = '# GENERATED from serverless.yml by `npm run infra:generate`. Do not edit: edit serverless.yml.\n';

export function toYaml(objects: object[]): string {
  return HEADER + objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}

/** Every generated file, path relative to the repository -> content. */
export function generatedFiles(decl: Declaration = readDeclaration()): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [file, objects] of Object.entries(renderKnative(decl))) out[join(decl.deployment.targets.knative, file)] = toYaml(objects);
  const gcp = renderGcp(decl);
  const dir = decl.deployment.targets.gcp;
  for (const [name, svc] of Object.entries(gcp.services)) out[join(dir, 'services', `${name}.yaml`)] = toYaml([svc]);
  for (const [name, job] of Object.entries(gcp.scheduler)) out[join(dir, 'scheduler', `${name}.json`)] = `${JSON.stringify(job, null, 2)}\n`;
  for (const [name, t] of Object.entries(gcp.eventarc)) out[join(dir, 'eventarc', `${name}.json`)] = `${JSON.stringify(t, null, 2)}\n`;
  out[join(dir, 'deploy.sh')] = deployScript(decl, gcp);
  return out;
}

export function writeGenerated(decl: Declaration = readDeclaration()): string[] {
  const files = generatedFiles(decl);
  // Stale files of a removed function must not linger beside the fresh ones.
  for (const dir of Object.values(decl.deployment.targets)) rmSync(join(REPO_ROOT, dir), { recursive: true, force: true });
  for (const file of Object.keys(files)) mkdirSync(dirname(join(REPO_ROOT, file)), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(REPO_ROOT, file), text, { mode: file.endsWith('.sh') ? 0o755 : 0o644 });
  return Object.keys(files);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const f of writeGenerated()) console.log(`wrote ${f}`);
  // The Helm chart's generated parts (templates beside hand-written ones: not removed first).
  for (const f of writeChart(readDeclaration())) console.log(`wrote ${f}`);
}
