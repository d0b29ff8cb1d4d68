import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/env.js';
import { readCleanupConfig } from './config.js';

describe('pod cleanup configuration', () => {
  it('refuses a short invoke token, naming the variable', () => {
    expect(() => readCleanupConfig({ INVOKE_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => readCleanupConfig({ INVOKE_TOKEN: 'short' })).toThrow(/INVOKE_TOKEN: must be at least 16 characters/);
  });

  it('takes no token at all: invoke then only plans', () => {
    expect(readCleanupConfig({}).INVOKE_TOKEN).toBeUndefined();
  });
});
