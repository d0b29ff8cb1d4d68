// Worker kubeconfigs read from a path: a MultiKueueCluster (or the static configuration) names
// the file, so what is read is bounded; the reason never quotes the file's contents.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_KUBECONFIG_BYTES, Workers } from './workers.js';

const listed = (entry: string) => new Workers({} as never, { kueueNamespace: 'kueue-system', staticWorkers: [entry], ttlMs: 0, now: () => 0 }).list();

describe('worker kubeconfigs from a path', () => {
  it('a file that never ends (/dev/zero) is refused past 1 MiB, not read until memory runs out', async () => {
    expect(await listed('w=/dev/zero')).toEqual([{ name: 'w', error: { message: 'kubeconfig /dev/zero of worker w: larger than 1 MiB', transient: false } }]);
  });

  it('a file of exactly the cap is read (and, not being a kubeconfig, refused without quoting it)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-workers-')), 'kubeconfig');
    writeFileSync(file, 'x'.repeat(MAX_KUBECONFIG_BYTES));
    const [w] = await listed(`w=${file}`);
    expect(w!.error?.message).not.toMatch(/larger than|xxxx/);
    expect(w!.api).toBeUndefined();
  });
});
