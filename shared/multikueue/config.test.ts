import { describe, expect, it } from 'vitest';
import type { ConfigError } from '../config/env.js';
import { readMultiKueueConfig as readConfig } from './config.js';

describe('MultiKueue configuration', () => {
  it('defaults to Kueue’s origin, namespace and batch/v1 Jobs, with Background propagation', () => {
    const c = readConfig({});
    expect(c).toMatchObject({ MULTIKUEUE_ORIGIN: 'multikueue', KUEUE_NAMESPACE: 'kueue-system', MULTIKUEUE_PROPAGATION: 'Background' });
    expect(c.MULTIKUEUE_JOB_KINDS.map((k) => `${k.group}/${k.version}/${k.kind}`)).toEqual(['batch/v1/Job']);
  });

  it('reads job kinds as group/version/Kind, with an optional plural', () => {
    const c = readConfig({ MULTIKUEUE_JOB_KINDS: 'batch/v1/Job, jobset.x-k8s.io/v1alpha2/JobSet,kubeflow.org/v1/MPIJob:mpijobs' });
    expect(c.MULTIKUEUE_JOB_KINDS.map((k) => `${k.group} ${k.version} ${k.kind} ${k.plural}`)).toEqual([
      'batch v1 Job jobs',
      'jobset.x-k8s.io v1alpha2 JobSet jobsets',
      'kubeflow.org v1 MPIJob mpijobs',
    ]);
  });

  const bad = [
    {
      sentence: 'a job kind without a version is refused',
      env: { MULTIKUEUE_JOB_KINDS: 'batch/Job' },
      problem: 'MULTIKUEUE_JOB_KINDS.0: expected group/version/Kind',
    },
    {
      sentence: 'a static worker without a path is refused',
      env: { MULTIKUEUE_WORKERS: 'worker-1' },
      problem: 'MULTIKUEUE_WORKERS.0: expected name=/path/to/kubeconfig',
    },
    {
      sentence: 'an origin that is not a label value is refused',
      env: { MULTIKUEUE_ORIGIN: 'has space' },
      problem: 'MULTIKUEUE_ORIGIN: must be a label value',
    },
    { sentence: 'an unknown propagation policy is refused', env: { MULTIKUEUE_PROPAGATION: 'Orphan' }, problem: 'MULTIKUEUE_PROPAGATION' },
  ];
  for (const c of bad) {
    it(c.sentence, () => {
      let problems: string[] = [];
      try {
        readConfig({ ...c.env });
      } catch (e) {
        problems = (e as ConfigError).problems;
      }
      expect(problems.join('\n')).toContain(c.problem);
    });
  }
});
