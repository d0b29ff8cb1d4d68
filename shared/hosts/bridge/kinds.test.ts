import { describe, expect, it } from 'vitest';
import { collectionPath, parseKinds, UnknownKindError } from './kinds.js';

describe('kinds', () => {
  it.each([
    { kinds: 'Pod', namespace: undefined, path: '/api/v1/pods', sentence: 'core kinds are watched under /api' },
    { kinds: 'Pod', namespace: 'ml', path: '/api/v1/namespaces/ml/pods', sentence: 'a namespace narrows the path' },
    { kinds: 'Job', namespace: undefined, path: '/apis/batch/v1/jobs', sentence: 'grouped kinds are watched under /apis/<group>/<version>' },
    { kinds: 'Job', namespace: 'ml', path: '/apis/batch/v1/namespaces/ml/jobs', sentence: 'grouped kinds in a namespace' },
    { kinds: 'PersistentVolumeClaim', namespace: 'ml', path: '/api/v1/namespaces/ml/persistentvolumeclaims', sentence: 'claims, for the object rules' },
    { kinds: 'Workload', namespace: undefined, path: '/apis/kueue.x-k8s.io/v1beta2/workloads', sentence: "Kueue's Workloads, for the object rules" },
  ])('$sentence', ({ kinds, namespace, path }) => {
    const [info] = parseKinds(kinds);
    expect(collectionPath(info!, namespace)).toBe(path);
  });

  it('reads a comma list, trims it and drops repeats', () => {
    expect(parseKinds(' Pod , Job,Pod').map((k) => k.kind)).toEqual(['Pod', 'Job']);
  });

  it('names every unknown kind and the known ones', () => {
    expect(() => parseKinds('Pod,Deployment,pod')).toThrow(
      new UnknownKindError('unknown kinds "Deployment", "pod" (known: Pod, Job, PersistentVolumeClaim, Workload)'),
    );
    expect(() => parseKinds(' , ')).toThrow(/no kinds given/);
  });
});
