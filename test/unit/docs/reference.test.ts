// The generated references are what the generator writes from today's code: a variable, a
// flag, an event type, a metric or a policy field added without `npm run docs:generate` fails
// here. And every variable a schema declares says what it means where it is declared.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { commentText, declaredComments, fieldComments } from '../../../infra/docs/comments.js';
import { accepts, defaultOf, ENV_SOURCES, undescribed } from '../../../infra/docs/env.js';
import { DOCS_ROOT, referencePages } from '../../../infra/docs/generate.js';

const pages = referencePages();

describe('docs/reference/', () => {
  it.each(Object.keys(pages))('%s is what `npm run docs:generate` writes now', (file) => {
    expect(readFileSync(join(DOCS_ROOT, file), 'utf8'), `${file} is stale: run npm run docs:generate`).toBe(pages[file]);
  });

  it('every environment variable a schema declares has a meaning where it is declared', () => {
    expect(undescribed(DOCS_ROOT)).toEqual([]);
  });

  it('every schema read from the environment is in the reference', () => {
    const files = execFileSync('git', ['grep', '-l', 'readEnv(', '--', 'shared', 'functions'], { cwd: DOCS_ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && !f.endsWith('.test.ts') && f !== 'shared/config/env.ts');
    const listed = new Set([...ENV_SOURCES.map((s) => s.file), 'shared/notify/config.ts']);
    expect(files.filter((f) => !listed.has(f))).toEqual([]);
  });
});

describe('what the environment reference reads', () => {
  it('defaults as the environment spells them, before a transform', () => {
    expect(
      defaultOf(
        z.coerce
          .number()
          .default(120)
          .transform((s) => s * 1000),
      ),
    ).toBe(120);
    expect(
      defaultOf(
        z
          .enum(['true', 'false'])
          .transform((v) => v === 'true')
          .default(false),
      ),
    ).toBe(false);
    expect(defaultOf(z.string().optional())).toBeUndefined();
    expect(accepts({ type: 'integer', minimum: 0, maximum: 300 })).toBe('integer 0..300');
  });

  it('comments of both kinds, above the property only', () => {
    expect(commentText('/**\n   * Two\n   * lines.\n   */')).toBe('Two lines.');
    const c = declaredComments(join(DOCS_ROOT, 'shared/defrag/config.ts'));
    expect(c.get('DEFRAG_PAGE_SIZE')).toMatch(/Pods per LIST page/);
  });

  it("a policy field without its own comment takes the doc comment of the const it is built from, not a file's header", () => {
    const c = fieldComments(['shared/strategies/pod-ttl/schema.ts', 'shared/policy/common.ts'].map((f) => join(DOCS_ROOT, f)));
    expect(c.get('sources')).toMatch(/Which conventions to honour/);
    expect(c.get('namespaces')).toMatch(/^`namespaces: \{include\|exclude\}`/);
  });
});
