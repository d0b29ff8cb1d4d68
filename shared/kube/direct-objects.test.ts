// Where the objects' direct requests go (direct-objects.ts): the paths client-node's typed and
// custom-objects clients build for the same objects. What is sent and how the answers read is
// checked on the real API server (test/integration/kube/delete-as-read.test.ts).
import { describe, expect, it } from 'vitest';
import { resourcePath } from './direct-objects.js';

const JOBS = { group: 'batch', version: 'v1', plural: 'jobs' };
const CLAIMS = { group: '', version: 'v1', plural: 'persistentvolumeclaims' };
const VOLUMES = { group: '', version: 'v1', plural: 'persistentvolumes' };

describe('resourcePath', () => {
  it.each([
    ['a named group, one namespace, one object', JOBS, 'ml', 'done-1', '/apis/batch/v1/namespaces/ml/jobs/done-1'],
    ['a named group, one namespace, its list', JOBS, 'ml', undefined, '/apis/batch/v1/namespaces/ml/jobs'],
    ['a named group, every namespace', JOBS, undefined, undefined, '/apis/batch/v1/jobs'],
    ['the core group, one namespace, one object', CLAIMS, 'ml', 'data', '/api/v1/namespaces/ml/persistentvolumeclaims/data'],
    ['the core group, a cluster-scoped object', VOLUMES, undefined, 'pv-1', '/api/v1/persistentvolumes/pv-1'],
    ["a segment is encoded as client-node encodes it (the path guard refuses '..')", JOBS, 'ml', 'a/b?c', '/apis/batch/v1/namespaces/ml/jobs/a%2Fb%3Fc'],
  ])('%s', (_sentence, resource, namespace, name, path) => {
    expect(resourcePath(resource, namespace, name)).toBe(path);
  });
});
