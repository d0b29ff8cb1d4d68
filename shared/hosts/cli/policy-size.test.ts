// Every place the CLI and the descheduler command read a policy stops at MAX_POLICY_BYTES (a
// ConfigMap's 1 MiB) and exits 2 saying so: `/dev/zero` once read until the process died.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_POLICY_BYTES } from '../../policy/load.js';
import { filePolicySource } from '../../runtime/policy-source.js';
import { deschedulerCommand } from '../descheduler/index.js';
import { policyDoc } from '../../../test/fixtures/policy.js';
import { run, runAsync } from './main.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-tidy-policy-size-'));
const pods = join(dir, 'pods.json');
writeFileSync(pods, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }));
const valid = JSON.stringify(policyDoc([{ name: 'RemoveFailedPods', args: {} }]));
// A valid policy padded with a comment to one byte past the cap.
const big = join(dir, 'big.yaml');
writeFileSync(big, `${valid}\n#${'x'.repeat(MAX_POLICY_BYTES)}`);
const atCap = join(dir, 'at-cap.yaml');
writeFileSync(atCap, `${valid}\n#`.padEnd(MAX_POLICY_BYTES, 'x'));

function cli(...argv: string[]) {
  let stderr = '';
  const code = run(argv, { out: () => undefined, err: (s) => void (stderr += s) });
  return { code, stderr };
}

describe('a policy larger than 1 MiB, or endless', () => {
  it.each([
    { sentence: 'policy check /dev/zero', args: ['policy', 'check', '/dev/zero'] },
    { sentence: 'policy check of a file one byte past the cap', args: ['policy', 'check', big] },
    { sentence: 'plan --policy /dev/zero', args: ['plan', '--policy', '/dev/zero', '--pods', pods] },
  ])('$sentence: exit 2, said', ({ args }) => {
    const r = cli(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('larger than 1 MiB');
  });

  it('plan and run against a cluster read no further either (the policy is read before the cluster)', async () => {
    for (const mode of ['plan', 'run']) {
      let stderr = '';
      const code = await runAsync([mode, '--kubeconfig', join(dir, 'none'), '--policy', '/dev/zero', ...(mode === 'run' ? ['--yes'] : [])], {
        out: () => undefined,
        err: (s) => void (stderr += s),
      });
      expect(code).toBe(2);
      expect(stderr).toContain('larger than 1 MiB');
    }
  });

  it('kube-tidy descheduler --policy-config-file /dev/zero: exit 2 before any cluster is asked', async () => {
    let stderr = '';
    const code = await deschedulerCommand(['--policy-config-file', '/dev/zero', '--secure-port', '0'], {
      out: () => undefined,
      err: (s) => void (stderr += s),
    });
    expect(code).toBe(2);
    expect(stderr).toContain('/dev/zero');
    expect(stderr).toContain('larger than 1 MiB');
  });

  it("the runtime's POLICY_FILE (a mounted file): refused as a PolicyError", () => {
    expect(() => filePolicySource('/dev/zero', false)).toThrow('larger than 1 MiB');
  });

  it('a policy of exactly 1 MiB is read', () => {
    expect(cli('policy', 'check', atCap).code).toBe(0);
  });
});
