import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/env.js';
import { trustedSendersOf } from './trusted-senders.js';

const SOURCE = 'system:serviceaccount:kube-tidy:apiserversource-pods-oidc';
const problems = (env: NodeJS.ProcessEnv): string[] => {
  try {
    trustedSendersOf(env);
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};

describe('TRUSTED_POD_SENDERS', () => {
  it('unset (the default): no sender is trusted, every pod is read first', () => {
    const trusts = trustedSendersOf({ SENDER_AUTH: 'kubernetes' });
    expect([SOURCE, 'anonymous', undefined].map(trusts)).toEqual([false, false, false]);
  });

  it('trusts the senders it names and no other, and never a sender a host did not authenticate', () => {
    const trusts = trustedSendersOf({ SENDER_AUTH: 'kubernetes', SENDER_AUTH_SUBJECTS: `${SOURCE},other`, TRUSTED_POD_SENDERS: ` ${SOURCE} ` });
    expect([SOURCE, 'other', 'anonymous', undefined].map(trusts)).toEqual([true, false, false, false]);
  });

  it.each([
    { sentence: 'without sender authentication (every caller is anonymous)', env: { TRUSTED_POD_SENDERS: SOURCE }, says: 'needs SENDER_AUTH' },
    { sentence: 'with SENDER_AUTH=none', env: { SENDER_AUTH: 'none', TRUSTED_POD_SENDERS: SOURCE }, says: 'needs SENDER_AUTH' },
    { sentence: 'naming no sender', env: { SENDER_AUTH: 'kubernetes', TRUSTED_POD_SENDERS: ' , ' }, says: 'names no sender' },
    {
      sentence: 'naming a sender the sender check refuses anyway',
      env: { SENDER_AUTH: 'kubernetes', SENDER_AUTH_SUBJECTS: 'a', TRUSTED_POD_SENDERS: SOURCE },
      says: 'not in SENDER_AUTH_SUBJECTS',
    },
  ])('is a configuration error $sentence', ({ env, says }) => {
    expect(problems(env)).toEqual([expect.stringMatching(new RegExp(`^TRUSTED_POD_SENDERS: .*${says}`))]);
  });
});
