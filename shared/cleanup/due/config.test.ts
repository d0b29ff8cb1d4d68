import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/env.js';
import { readDueConfig } from './config.js';

const TICK = 'system:serviceaccount:kube-tidy:pod-terminated-tick-oidc-eventing.knative.dev-trigger';
const problems = (env: NodeJS.ProcessEnv): string[] => {
  try {
    readDueConfig(env);
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};

describe('DUE_TICK_SENDERS', () => {
  it('unset: no sender is named, ticks are taken from any sender let through', () => {
    expect(readDueConfig({}).DUE_TICK_SENDERS).toBeUndefined();
  });

  it('names the senders whose ticks are taken, with sender authentication on', () => {
    const env = { SENDER_AUTH: 'kubernetes', SENDER_AUTH_SUBJECTS: `a,${TICK}`, DUE_TICK_SENDERS: ` ${TICK} ` };
    expect(readDueConfig(env).DUE_TICK_SENDERS).toEqual([TICK]);
  });

  it.each([
    { sentence: 'without sender authentication (every caller is anonymous)', env: { DUE_TICK_SENDERS: TICK }, says: 'needs SENDER_AUTH' },
    { sentence: 'with SENDER_AUTH=none', env: { SENDER_AUTH: 'none', DUE_TICK_SENDERS: TICK }, says: 'needs SENDER_AUTH' },
    { sentence: 'naming no sender', env: { SENDER_AUTH: 'kubernetes', DUE_TICK_SENDERS: ' , ' }, says: 'names no sender' },
    {
      sentence: 'naming a sender the sender check refuses anyway',
      env: { SENDER_AUTH: 'kubernetes', SENDER_AUTH_SUBJECTS: 'a', DUE_TICK_SENDERS: TICK },
      says: 'not in SENDER_AUTH_SUBJECTS',
    },
  ])('is a configuration error $sentence', ({ env, says }) => {
    expect(problems(env)).toEqual([expect.stringMatching(new RegExp(`^DUE_TICK_SENDERS: .*${says}`))]);
  });
});
