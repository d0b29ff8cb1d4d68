import { describe, expect, it } from 'vitest';
import { GOOGLE_ISSUERS, GOOGLE_JWKS_URL, readSenderAuthConfig, SenderAuthConfigError } from './config.js';

function problems(env: Record<string, string>): string[] {
  try {
    readSenderAuthConfig(env);
  } catch (e) {
    if (e instanceof SenderAuthConfigError) return e.problems;
    throw e;
  }
  return [];
}

describe('sender authentication configuration', () => {
  it('is off by default, for local development', () => {
    expect(readSenderAuthConfig({}).platform).toBe('none');
  });

  it('reports every problem at once, each with its variable', () => {
    const found = problems({ SENDER_AUTH: 'google', SENDER_AUTH_JWKS_URL: 'http://example.com/certs', SENDER_AUTH_CLOCK_TOLERANCE_SECONDS: '-1' });
    expect(found).toHaveLength(4);
    expect(found.join('\n')).toMatch(/SENDER_AUTH_AUDIENCE: required/);
    expect(found.join('\n')).toMatch(/SENDER_AUTH_SUBJECTS: required when SENDER_AUTH is google/);
    expect(found.join('\n')).toMatch(/SENDER_AUTH_JWKS_URL: must be https/);
    expect(found.join('\n')).toMatch(/SENDER_AUTH_CLOCK_TOLERANCE_SECONDS/);
  });

  it('names the allowed platforms for an unknown one', () => {
    expect(problems({ SENDER_AUTH: 'knative' }).join()).toMatch(/SENDER_AUTH: .*"none"\|"kubernetes"\|"google"\|"oidc"/);
  });

  it('needs an issuer for oidc, and a fetchable one when keys come from its discovery', () => {
    expect(problems({ SENDER_AUTH: 'oidc', SENDER_AUTH_AUDIENCE: 'a' })).toEqual(['SENDER_AUTH_ISSUER: required when SENDER_AUTH is oidc']);
    expect(problems({ SENDER_AUTH: 'oidc', SENDER_AUTH_AUDIENCE: 'a', SENDER_AUTH_ISSUER: 'http://issuer.example' }).join()).toMatch(
      /SENDER_AUTH_ISSUER: must be https/,
    );
    expect(problems({ SENDER_AUTH: 'oidc', SENDER_AUTH_AUDIENCE: 'a', SENDER_AUTH_ISSUER: 'http://127.0.0.1:1' })).toEqual([]);
  });

  it('kubernetes needs only the audience: issuer and keys come from the API server', () => {
    const c = readSenderAuthConfig({
      SENDER_AUTH: 'kubernetes',
      SENDER_AUTH_AUDIENCE: 'serving.knative.dev/service/kube-tidy/sweep',
      SENDER_AUTH_SUBJECTS: 'system:serviceaccount:kube-tidy:a, system:serviceaccount:kube-tidy:b',
    });
    expect(c).toEqual({
      platform: 'kubernetes',
      audiences: ['serving.knative.dev/service/kube-tidy/sweep'],
      issuers: [],
      subjects: ['system:serviceaccount:kube-tidy:a', 'system:serviceaccount:kube-tidy:b'],
      clockToleranceSeconds: 30,
    });
  });

  it("google defaults to Google's issuer and certs", () => {
    const c = readSenderAuthConfig({
      SENDER_AUTH: 'google',
      SENDER_AUTH_AUDIENCE: 'https://x.run.app/,https://x.run.app',
      SENDER_AUTH_SUBJECTS: 'sa@p.iam.gserviceaccount.com',
    });
    expect(c.issuers).toEqual(GOOGLE_ISSUERS);
    expect(c.jwksUrl).toBe(GOOGLE_JWKS_URL);
    expect(c.audiences).toEqual(['https://x.run.app/', 'https://x.run.app']);
  });
});
