import { describe, expect, it } from 'vitest';
import { unsafePathProblem } from './path-guard.js';

describe('the request-path guard every client request passes', () => {
  it.each([
    ['a pod delete', 'https://10.0.0.1:6443/api/v1/namespaces/ml/pods/web-1?dryRun=All'],
    ['an eviction', 'https://h/api/v1/namespaces/ml/pods/web-1/eviction'],
    ['a list with a continue token', 'https://h/api/v1/pods?limit=500&continue=eyJ2Ijoi%2F..'],
    ['a custom object', 'https://h/apis/kubevirt.io/v1/namespaces/vm/virtualmachineinstancemigrations/kube-tidy-1'],
  ])('lets %s through', (_what, url) => expect(unsafePathProblem(url)).toBeUndefined());

  it.each([
    ['a pod named ..', 'https://h/api/v1/namespaces/ml/pods/..', "'..'"],
    ['a pod named .', 'https://h/api/v1/namespaces/ml/pods/.', "'.'"],
    ['an empty namespace', 'https://h/api/v1/namespaces//pods/x', 'empty path segment'],
    ['an encoded slash', 'https://h/api/v1/namespaces/ml/pods/a%2Fb', 'encoded'],
    ['an encoded NUL', 'https://h/api/v1/namespaces/ml/pods/a%00', 'encoded'],
    ['an encoded dot-dot', 'https://h/api/v1/namespaces/ml/pods/%2e%2e', 'encoded'],
    ['a backslash', 'https://h/api/v1/namespaces/ml/pods/a\\b', 'backslash'],
  ])('refuses %s', (_what, url, problem) => expect(unsafePathProblem(url)).toContain(problem));
});
