// docs/compatibility.md: every row of its tables names the test that backs it, and that test
// file exists (links.test.ts checks the link resolves; here, that a row has one and it is a test).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS_ROOT } from '../../../infra/docs/generate.js';

const page = readFileSync(join(DOCS_ROOT, 'docs', 'compatibility.md'), 'utf8');

/** The body rows of every table (header and separator lines left out). */
function rows(text: string): string[] {
  const lines = text.split('\n');
  return lines.filter((l, i) => l.startsWith('|') && !/^\|[-| ]+\|$/.test(l) && !/^\|[-| ]+\|$/.test(lines[i + 1] ?? ''));
}

/** The test files a row links to, relative to the repository. */
const testsOf = (row: string): string[] => [...row.matchAll(/\]\(\.\.\/(test\/[^)#]+\.test\.ts)\)/g)].map((m) => m[1]!);

describe('docs/compatibility.md', () => {
  const body = rows(page);

  it('has its tables: Kubernetes features, add-ons, the descheduler, Node and Helm', () => {
    for (const want of ['PersistentVolumeClaim', 'EvictionRequest', 'Kueue', 'Knative', 'KubeVirt', 'v0.36.0', 'Node 24', 'Helm'])
      expect(
        body.some((r) => r.includes(want)),
        want,
      ).toBe(true);
  });

  it('names, in every row, a test file that exists', () => {
    const missing = body.filter((r) => testsOf(r).length === 0);
    expect(missing).toEqual([]);
    const gone = body.flatMap(testsOf).filter((f) => !existsSync(join(DOCS_ROOT, f)));
    expect(gone).toEqual([]);
  });

  it('finds a row without a test (the check can fail)', () => {
    expect(testsOf('| Kueue | v0.19.2 | [docs](objects.md) |')).toEqual([]);
    expect(testsOf('| Kueue | v0.19.2 | [x](../test/integration/objects/workload.test.ts) |')).toEqual(['test/integration/objects/workload.test.ts']);
  });
});
