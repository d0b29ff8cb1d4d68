// client.cjs keeps only the client-node values our code imports; the list is read from the
// sources, so it can neither miss a name nor be fooled by a type-only import.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientEntry, clientImports } from '../../../infra/bundle/client-entry.js';
import { REPO_ROOT } from '../../../infra/declaration/declaration.js';

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-client-entry-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('the client entry', () => {
  it('collects named value imports across files, leaving out type-only ones, renames and test files', () => {
    const dir = tree({
      'a.ts': "import { CoreV1Api, type KubeConfig, Watch as W } from '@kubernetes/client-node';",
      'sub/b.ts': 'import {\n  KubeConfig,\n  type Middleware,\n} from "@kubernetes/client-node";\nimport type { V1Pod } from \'@kubernetes/client-node\';',
      'sub/b.test.ts': "import { Exec } from '@kubernetes/client-node';",
      'c.ts': "import { z } from 'zod';",
    });
    expect(clientImports([dir])).toEqual(['CoreV1Api', 'KubeConfig', 'Watch']);
    expect(clientEntry([dir])).toBe("export { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';\n");
  });

  it.each([
    ["import * as k8s from '@kubernetes/client-node';"],
    ["const k8s = await import('@kubernetes/client-node');"],
    ["import k8s from '@kubernetes/client-node';"],
  ])('stops the build on an import that could use any name: %s', (line) => {
    const dir = tree({ 'x.ts': line });
    expect(() => clientImports([dir])).toThrow(/import named values from @kubernetes\/client-node/);
  });

  it("finds the names this repository's functions use, the client's core among them", () => {
    const names = clientImports([join(REPO_ROOT, 'functions'), join(REPO_ROOT, 'shared')]);
    expect(names).toEqual(expect.arrayContaining(['CoreV1Api', 'KubeConfig', 'PolicyV1Api', 'Watch']));
  });
});
