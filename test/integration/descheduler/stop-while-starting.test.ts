// `kube-tidy descheduler` told to stop while it starts: SIGTERM (here its stop signal, which the
// program's SIGTERM handler aborts) before its first cycle, as when a descheduler pod is deleted
// right after it was created (a test's Deployment deleted, a rollout). It reads its policy,
// opens its secure port and asks the API server what it may do before it cycles; a stop in that
// time must end it with 0 and no cycle, as the descheduler's cancelled context does, not be
// missed (the loop listens for the signal only once it runs) with a cycle run after it and the
// process left to the kubelet's SIGKILL at the end of the grace period.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runDescheduler } from '../../../shared/hosts/descheduler/command.js';
import { parseDeschedulerFlags } from '../../../shared/hosts/descheduler/flags.js';
import { sharedCluster, testNamespace } from '../../harness/index.js';
import { failedPolicy } from '../brakes/helpers.js';

const ns = testNamespace('descheduler-stop');

describe('kube-tidy descheduler told to stop before its first cycle', () => {
  it.each(['5m', '0'])('with --descheduling-interval %s: exits 0 and begins no cycle', async (interval) => {
    const file = join(mkdtempSync(join(tmpdir(), 'kube-tidy-stop-')), 'policy.yaml');
    writeFileSync(file, stringify(failedPolicy([ns.name])));
    const flags = parseDeschedulerFlags([
      '--policy-config-file',
      file,
      '--kubeconfig',
      sharedCluster().kubeconfigPath,
      '--descheduling-interval',
      interval,
      '--secure-port',
      '0',
    ]);
    const log: string[] = [];
    let cycled: (why: string) => void = () => undefined;
    const cycle = new Promise<string>((resolve) => (cycled = resolve));
    const err = (s: string) => {
      log.push(s);
      if (s.includes('descheduling cycle done')) cycled('a cycle ran after the stop');
    };
    const stopped = new AbortController();
    stopped.abort();
    // Its own ledger namespace, as its Deployment sets it: the shared cluster holds other files'
    // ledgers, and with more than one and none named the program refuses to guess.
    const before = process.env.BRAKES_NAMESPACE;
    process.env.BRAKES_NAMESPACE = ns.name;
    const code = await Promise.race([runDescheduler(flags, { err, stopSignal: stopped.signal }), cycle]).finally(() => {
      if (before === undefined) delete process.env.BRAKES_NAMESPACE;
      else process.env.BRAKES_NAMESPACE = before;
    });
    expect(code, log.join('')).toBe(0);
    expect(log.join('')).toContain('"msg":"stopping"');
  });
});
