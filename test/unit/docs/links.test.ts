// Every relative link and #anchor in the repository's Markdown points somewhere: a page moved or
// a heading renamed fails here, not in a reader's browser.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenLinks, linksOf, slug } from '../../../infra/docs/links.js';
import { DOCS_ROOT } from '../../../infra/docs/generate.js';

const markdownFiles = () =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: DOCS_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !f.includes('node_modules'));

describe("the repository's Markdown links", () => {
  it('every relative link names a file that exists, every #anchor a heading of it', () => {
    const files = markdownFiles();
    expect(files).toContain('README.md');
    expect(files.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(10);
    expect(brokenLinks(DOCS_ROOT, files)).toEqual([]);
  });
});

describe('the link check', () => {
  it('makes the ids GitHub makes', () => {
    expect(slug("Scale: a backlog at the API server's pace")).toBe('scale-a-backlog-at-the-api-servers-pace');
    expect(slug('What a policy change would change: `plan --against`')).toBe('what-a-policy-change-would-change-plan---against');
    expect(slug('Knative (Serving + Eventing)')).toBe('knative-serving--eventing');
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n<a name="x"></a>')]).toEqual(['a', 'a-1', 'x']);
  });

  it('reads links outside code, and reference definitions', () => {
    const md = 'see [a](a.md#x) and `[b](b.md)`\n```\n[c](c.md)\n```\n[d]: d.md\n![img](p.png "title")';
    expect(linksOf(md).map((l) => l.target)).toEqual(['a.md#x', 'd.md', 'p.png']);
  });

  it('finds a missing file, a missing heading, and a missing heading in the same page', () => {
    const root = mkdtempSync(join(tmpdir(), 'links-'));
    mkdirSync(join(root, 'docs'));
    writeFileSync(
      join(root, 'README.md'),
      '# Top\n[ok](docs/a.md#there) [gone](docs/b.md) [wrong](docs/a.md#nowhere) [self](#top) [bad](#nope) [web](https://x.dev/#y)\n',
    );
    writeFileSync(join(root, 'docs/a.md'), '# There\n[up](../README.md#top)\n');
    expect(brokenLinks(root, ['README.md', 'docs/a.md'])).toEqual([
      'README.md:2 docs/b.md (no such file)',
      'README.md:2 docs/a.md#nowhere (no such heading)',
      'README.md:2 #nope (no such heading)',
    ]);
  });
});
