// Every kind a command accepts is named in its help (and so in docs/reference/cli.md): the
// bridge's --kinds takes every kind of its table (shared/hosts/bridge/kinds.ts), and the live
// plan and run handle every kind a kubeTidy.objects rule may name.
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../../shared/hosts/bridge/kinds.js';
import { BRIDGE_HELP, LIVE_PLAN_HELP, MAIN_HELP, RUN_HELP } from '../../../shared/hosts/cli/help.js';
import { OBJECT_KINDS } from '../../../shared/policy/objects-schema.js';

const named = (text: string, kinds: readonly string[]) => kinds.filter((k) => !new RegExp(`\\b${k}\\b`).test(text));

describe('the kinds a command accepts, in its help', () => {
  it("bridge --help's --kinds names every kind the bridge watches", () => {
    const option = BRIDGE_HELP.split('\n').find((l) => l.trimStart().startsWith('--kinds'));
    expect(option).toBeDefined();
    expect(named(option!, Object.keys(KINDS))).toEqual([]);
  });

  it.each([
    ['kube-tidy --help', MAIN_HELP],
    ['kube-tidy plan --kubeconfig FILE --help', LIVE_PLAN_HELP],
    ['kube-tidy run --help', RUN_HELP],
  ])('%s names every kind an object rule may name', (_, help) => {
    expect(named(help, OBJECT_KINDS)).toEqual([]);
  });
});
