import { describe, expect, it } from 'vitest';
import { apiServerSubject, guessResource } from './subject.js';

describe('apiServerSubject builds the subject Knative ApiServerSource sends', () => {
  const cases: { name: string; parts: Parameters<typeof apiServerSubject>[0]; want: string }[] = [
    {
      name: 'a core Pod goes under /apis/v1, not /api/v1',
      parts: { apiVersion: 'v1', kind: 'Pod', namespace: 'ml', name: 'p' },
      want: '/apis/v1/namespaces/ml/pods/p',
    },
    {
      name: 'a batch Job keeps its group and version',
      parts: { apiVersion: 'batch/v1', kind: 'Job', namespace: 'ml', name: 'train' },
      want: '/apis/batch/v1/namespaces/ml/jobs/train',
    },
    {
      name: 'a kubevirt migration is pluralised by lower-casing and adding s',
      parts: { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstanceMigration', namespace: 'vms', name: 'm' },
      want: '/apis/kubevirt.io/v1/namespaces/vms/virtualmachineinstancemigrations/m',
    },
    {
      name: 'a kind ending in y becomes ies',
      parts: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', namespace: 'a', name: 'deny' },
      want: '/apis/networking.k8s.io/v1/namespaces/a/networkpolicies/deny',
    },
    {
      name: 'a kind ending in s becomes es',
      parts: { apiVersion: 'v1', kind: 'Status', namespace: 'a', name: 's' },
      want: '/apis/v1/namespaces/a/statuses/s',
    },
    {
      name: 'Endpoints stays as it is',
      parts: { apiVersion: 'v1', kind: 'Endpoints', namespace: 'a', name: 'svc' },
      want: '/apis/v1/namespaces/a/endpoints/svc',
    },
    {
      name: 'a bare group without version gets versionUnknown, as in Knative',
      parts: { apiVersion: 'serving.knative.dev', kind: 'Revision', namespace: 'a', name: 'r' },
      want: '/apis/serving.knative.dev/versionUnknown/namespaces/a/revisions/r',
    },
    {
      name: 'a cluster-scoped Node keeps an empty namespaces segment, as in Knative',
      parts: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
      want: '/apis/v1/namespaces//nodes/n1',
    },
  ];
  for (const c of cases) {
    it(c.name, () => expect(apiServerSubject(c.parts)).toBe(c.want));
  }

  it('an empty kind guesses an empty resource', () => expect(guessResource('')).toBe(''));
});
