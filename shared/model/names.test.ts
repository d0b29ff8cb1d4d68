import { describe, expect, it } from 'vitest';
import { dns1123LabelProblem, dns1123SubdomainProblem, tokenProblem } from './names.js';

describe('names as Kubernetes validates them', () => {
  it.each([
    ['a pod name with dots and dashes', 'web-1.batch', undefined],
    ['a 253-character name', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`, undefined],
    ['..', '..', 'DNS-1123 subdomain'],
    ['.', '.', 'DNS-1123 subdomain'],
    ['a slash', 'a/b', 'DNS-1123 subdomain'],
    ['an encoded slash', 'a%2Fb', 'DNS-1123 subdomain'],
    ['a NUL', 'a\u0000b', 'DNS-1123 subdomain'],
    ['upper case', 'Web', 'DNS-1123 subdomain'],
    ['a leading dash', '-web', 'DNS-1123 subdomain'],
    ['an empty part', 'a..b', 'DNS-1123 subdomain'],
    ['254 characters', 'a'.repeat(254), 'at most 253'],
    ['a 1 MiB name', 'a'.repeat(1024 * 1024), 'at most 253'],
    ['a number', 42, 'non-empty string'],
    ['empty', '', 'non-empty string'],
  ])('a subdomain: %s', (_name, value, problem) => {
    const p = dns1123SubdomainProblem(value);
    if (problem === undefined) expect(p).toBeUndefined();
    else expect(p).toContain(problem);
  });

  it.each([
    ['a namespace', 'kube-system', undefined],
    ['a dot', 'a.b', 'DNS-1123 label'],
    ['64 characters', 'a'.repeat(64), 'at most 63'],
  ])('a label: %s', (_name, value, problem) => {
    const p = dns1123LabelProblem(value);
    if (problem === undefined) expect(p).toBeUndefined();
    else expect(p).toContain(problem);
  });

  it('accepts uids and resourceVersions as the API server writes them, and nothing path-like', () => {
    expect(tokenProblem('6f0c8e2a-1d2b-4c3d-9e8f-0123456789ab')).toBeUndefined();
    expect(tokenProblem('184467')).toBeUndefined();
    expect(tokenProblem('../x')).toBeDefined();
    expect(tokenProblem('x'.repeat(129))).toContain('at most 128');
  });

  it('checks a 1 MiB candidate in linear time (the length is checked first)', () => {
    const started = performance.now();
    for (let i = 0; i < 100; i++) dns1123SubdomainProblem(`${'a-'.repeat(512 * 1024)}!`);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
