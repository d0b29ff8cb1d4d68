// Where the direct requests go (direct-paths.ts): the paths and queries client-node's typed and
// custom-objects clients build for the same calls, a pod's among them. What is sent and how the
// answers read is checked on the real API server (test/integration/kube/delete-as-read.test.ts,
// test/integration/kube/evict.test.ts and list.test.ts for the pods).
import { describe, expect, it } from 'vitest';
import { resourcePath, withQuery } from './direct-paths.js';

const JOBS = { group: 'batch', version: 'v1', plural: 'jobs' };
const CLAIMS = { group: '', version: 'v1', plural: 'persistentvolumeclaims' };
const VOLUMES = { group: '', version: 'v1', plural: 'persistentvolumes' };
const PODS = { group: '', version: 'v1', plural: 'pods' };

describe('resourcePath', () => {
  it.each([
    ['a named group, one namespace, one object', JOBS, 'ml', 'done-1', '/apis/batch/v1/namespaces/ml/jobs/done-1'],
    ['a named group, one namespace, its list', JOBS, 'ml', undefined, '/apis/batch/v1/namespaces/ml/jobs'],
    ['a named group, every namespace', JOBS, undefined, undefined, '/apis/batch/v1/jobs'],
    ['the core group, one namespace, one object', CLAIMS, 'ml', 'data', '/api/v1/namespaces/ml/persistentvolumeclaims/data'],
    ['the core group, a cluster-scoped object', VOLUMES, undefined, 'pv-1', '/api/v1/persistentvolumes/pv-1'],
    ['a pod, as CoreV1Api writes its path', PODS, 'ml', 'p-1', '/api/v1/namespaces/ml/pods/p-1'],
    ['the pods of every namespace, as CoreV1Api lists them', PODS, undefined, undefined, '/api/v1/pods'],
    ["a segment is encoded as client-node encodes it (the path guard refuses '..')", JOBS, 'ml', 'a/b?c', '/apis/batch/v1/namespaces/ml/jobs/a%2Fb%3Fc'],
  ])('%s', (_sentence, resource, namespace, name, path) => {
    expect(resourcePath(resource, namespace, name)).toBe(path);
  });
});

describe('withQuery', () => {
  it.each([
    ['no parameter set: the path alone', [['limit', undefined]] as const, '/p'],
    ['an empty parameter is left out, as client-node leaves it out', [['continue', '']] as const, '/p'],
    [
      'the parameters set, in the order given, each encoded',
      [
        ['labelSelector', 'a=b,c'],
        ['limit', 500],
        ['continue', 'x/y'],
      ] as const,
      '/p?labelSelector=a%3Db%2Cc&limit=500&continue=x%2Fy',
    ],
    ['a dry run', [['dryRun', 'All']] as const, '/p?dryRun=All'],
  ])('%s', (_sentence, params, path) => {
    expect(withQuery('/p', params)).toBe(path);
  });
});
