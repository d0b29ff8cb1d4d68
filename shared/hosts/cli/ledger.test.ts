// Which ledger a person's `kube-tidy run` charges: the deployed kube-tidy's (issue 33). The
// cluster's answer is played by a list function (the real LIST: test/integration/cli/ledger.test.ts).
import { describe, expect, it } from 'vitest';
import { ApiException } from '@kubernetes/client-node';
import { chooseLedger } from './ledger.js';
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
