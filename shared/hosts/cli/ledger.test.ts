// Which ledger a person's `kube-tidy run` charges: the deployed kube-tidy's (issue 33). The
// cluster's answer is played by a list function (the real LIST: test/integration/cli/ledger.test.ts).
import { describe, expect, it } from 'vitest';
import { ApiException } from '@kubernetes/client-node';
import { chooseLedger } from './ledger.js';
import { ownNamespaceOf } from './live.js';
import { InputError } from './input.js';

const cluster = (namespaces: string[] | 'forbidden') => ({
  listConfigMapForAllNamespaces: async () => {
    if (namespaces === 'forbidden') throw new ApiException(403, 'forbidden', {}, {});
    return { items: namespaces.map((namespace) => ({ metadata: { name: 'kube-tidy-brakes', namespace } })) };
  },
});

describe('the ledger a CLI run charges', () => {
  const rows: { sentence: string; found: string[] | 'forbidden'; flag?: string; policyNamespace?: string; want: string; why: RegExp }[] = [
    { sentence: 'the flag wins over what the cluster holds', found: ['ops'], flag: 'mine', want: 'mine', why: /--brakes-namespace/ },
    {
      sentence: 'the one ledger in the cluster, wherever the deployment keeps it',
      found: ['ops'],
      policyNamespace: 'kube-tidy',
      want: 'ops',
      why: /the one in the cluster/,
    },
    {
      sentence: 'none yet: beside the deployed policy',
      found: [],
      policyNamespace: 'ops',
      want: 'ops',
      why: /none in the cluster yet: the policy's namespace, ops/,
    },
    { sentence: 'none yet and a policy file: kube-tidy', found: [], want: 'kube-tidy', why: /none in the cluster yet: kube-tidy/ },
    {
      sentence: 'several: the one beside the policy',
      found: ['a', 'ops'],
      policyNamespace: 'ops',
      want: 'ops',
      why: /beside the policy \(ledgers also in a\)/,
    },
    {
      sentence: 'several, none beside the policy: the one in kube-tidy',
      found: ['a', 'kube-tidy'],
      want: 'kube-tidy',
      why: /the default namespace's \(ledgers also in a\)/,
    },
    { sentence: 'may not list: beside the policy, and says so', found: 'forbidden', policyNamespace: 'ops', want: 'ops', why: /may not list ConfigMaps/ },
  ];
  for (const r of rows)
    it(r.sentence, async () => {
      const got = await chooseLedger(cluster(r.found), { flag: r.flag, policyNamespace: r.policyNamespace });
      expect(got.namespace).toBe(r.want);
      expect(got.why).toMatch(r.why);
    });

  it('several and none beside the policy: the person names one (exit 2)', async () => {
    await expect(chooseLedger(cluster(['a', 'b']), {})).rejects.toThrow(InputError);
    await expect(chooseLedger(cluster(['a', 'b']), {})).rejects.toThrow(/2 brakes' ledgers \(in a, b\): name the one to charge/);
  });
});

describe("the namespace a CLI run protects from ttl rules as the deployed kube-tidy's own", () => {
  const flags = (brakesNamespace?: string) => ({ brakesNamespace, policyConfigMap: 'tidy/kube-tidy-policy' });
  it.each([
    {
      sentence: 'the ledger it charges, found as the deployed one',
      o: flags(),
      ledger: 'ops',
      deployed: true,
      want: { namespace: 'ops', from: 'where its brakes ledger is' },
    },
    {
      sentence: 'the ledger --brakes-namespace named',
      o: flags('ops'),
      ledger: 'ops',
      deployed: false,
      want: { namespace: 'ops', from: '--brakes-namespace' },
    },
    {
      sentence: 'no brakes to charge: --brakes-namespace',
      o: flags('ops'),
      ledger: undefined,
      deployed: true,
      want: { namespace: 'ops', from: '--brakes-namespace' },
    },
    {
      sentence: "no brakes, no flag: the deployed policy's namespace",
      o: flags(),
      ledger: undefined,
      deployed: true,
      want: { namespace: 'tidy', from: 'beside its policy ConfigMap' },
    },
    {
      sentence: "a policy file and nothing else: BRAKES_NAMESPACE's default",
      o: flags(),
      ledger: undefined,
      deployed: false,
      want: { namespace: 'kube-tidy', from: "BRAKES_NAMESPACE's default" },
    },
  ])('$sentence', ({ o, ledger, deployed, want }) => {
    expect(ownNamespaceOf(o, ledger, deployed)).toEqual(want);
  });
});
