// `npm run docs:generate`: writes docs/reference/ from the code (environment variables, the
// CLI's help, CloudEvent types, metrics, the dashboard and alerts, policy fields). The pages are committed so a reader on
// GitHub sees them; test/unit/docs/reference.test.ts fails when one is stale.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliPage } from './cli.js';
import { cloudEventsPage } from './cloudevents.js';
import { dashboardPage } from './dashboard.js';
import { dashboardSvg } from './dashboard-svg.js';
import { ENV_SCANNED_DIRS, environmentPage } from './env.js';
import { metricsPage } from './metrics.js';
import { policyPage } from './policy.js';

export const DOCS_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The code files scanned for variables read outside the schemas (tracked, not tests). */
function scannedFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', ...ENV_SCANNED_DIRS], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(ts|cjs|js)$/.test(f) && !/\.test\.ts$/.test(f));
}

/** Every generated page, path relative to the repository -> content. */
export function referencePages(root: string = DOCS_ROOT): Record<string, string> {
  return {
    'docs/reference/environment.md': environmentPage(root, scannedFiles(root)),
    'docs/reference/cli.md': cliPage(),
    'docs/reference/cloudevents.md': cloudEventsPage(root),
    'docs/reference/metrics.md': metricsPage(),
    'docs/reference/dashboard.md': dashboardPage(root),
    'docs/reference/dashboard.svg': dashboardSvg(root, 'infra/helm/kube-tidy/files/dashboard.json'),
    'docs/reference/policy.md': policyPage(root),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [file, text] of Object.entries(referencePages())) {
    mkdirSync(dirname(join(DOCS_ROOT, file)), { recursive: true });
    writeFileSync(join(DOCS_ROOT, file), text);
    console.log(`wrote ${file}`);
  }
}
