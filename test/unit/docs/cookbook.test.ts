// docs/cookbook.md's policies: each file under docs/cookbook/ passes `kube-tidy policy check`
// without a warning, is shown whole on the page (so the page cannot drift from the file), and
// the first does what its heading says on an offline plan: a Job's Failed pods past the hour
// go, its three newest failures stay (docs/retention.md: every finished pod counts).
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync } from '../../../shared/hosts/cli/main.js';
import { DOCS_ROOT } from '../../../infra/docs/generate.js';
import { NOW, pod } from '../../fixtures/pods.js';

const DIR = join(DOCS_ROOT, 'docs', 'cookbook');
const page = readFileSync(join(DOCS_ROOT, 'docs', 'cookbook.md'), 'utf8');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runAsync(args, { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

describe('the cookbook', () => {
  it('has the six policies the page promises', () => {
    expect(files.sort()).toEqual([
      'descheduler-cronjob.yaml',
      'failed-job-pods.yaml',
      'finished-jobs-and-scratch-claims.yaml',
      'finished-kueue-workloads.yaml',
      'preview-namespaces.yaml',
      'test-environments.yaml',
    ]);
  });

  for (const f of files) {
    it(`${f} passes policy check without a warning`, async () => {
      const r = await cli('policy', 'check', join(DIR, f));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
    });

    it(`${f} is shown whole on the page, and linked`, () => {
      expect(page).toContain('```yaml\n' + readFileSync(join(DIR, f), 'utf8') + '```\n');
      expect(page).toContain(`](cookbook/${f})`);
    });
  }

  it("failed-job-pods.yaml: of a Job's seven Failed pods the three newest stay (one under the hour among them, which counts though not selected), the four older go; a ReplicaSet's evicted pod stays", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-cookbook-'));
    const pods = [1, 2, 3, 4, 5, 6].map((i) =>
      pod(`etl-${i}`)
        .inNamespace('batch')
        .ownedBy('Job', 'etl')
        .failed()
        .age(7200 - i * 60)
        .build(),
    );
    pods.push(pod('etl-young').inNamespace('batch').ownedBy('Job', 'etl').failed().age(600).build());
    pods.push(pod('web-evicted').inNamespace('batch').ownedBy('ReplicaSet', 'web').failed({ reason: 'Evicted' }).age(7200).build());
    const dump = join(dir, 'pods.json');
    writeFileSync(dump, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods }));
    const r = await cli('plan', '--policy', join(DIR, 'failed-job-pods.yaml'), '--pods', dump, '--now', new Date(NOW).toISOString(), '-o', 'json');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; action?: string; outcome?: string });
    const removed = lines.filter((l) => l.action === 'delete').map((l) => l.name);
    expect(removed.sort()).toEqual(['etl-1', 'etl-2', 'etl-3', 'etl-4']);
  });
});
