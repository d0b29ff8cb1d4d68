import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/env.js';
import { DEFAULT_SWEEP_CONCURRENCY, readCleanupConfig, readPassConfig, sweepSettingsOf } from './config.js';

describe('pod cleanup configuration', () => {
  it('refuses a short invoke token, naming the variable', () => {
    expect(() => readCleanupConfig({ INVOKE_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => readCleanupConfig({ INVOKE_TOKEN: 'short' })).toThrow(/INVOKE_TOKEN: must be at least 16 characters/);
  });

  it('takes no token at all: invoke then only plans', () => {
    expect(readCleanupConfig({}).INVOKE_TOKEN).toBeUndefined();
  });

  it('keeps shard plans in KUBE_TIDY_NAMESPACE (the manifests set it), unless SWEEP_PLAN_NAMESPACE says otherwise, else kube-tidy', () => {
    expect(readCleanupConfig({}).SWEEP_PLAN_NAMESPACE).toBe('kube-tidy');
    expect(readCleanupConfig({ KUBE_TIDY_NAMESPACE: 'ops' }).SWEEP_PLAN_NAMESPACE).toBe('ops');
    expect(readCleanupConfig({ KUBE_TIDY_NAMESPACE: 'ops', SWEEP_PLAN_NAMESPACE: 'plans' }).SWEEP_PLAN_NAMESPACE).toBe('plans');
    expect(() => readCleanupConfig({ KUBE_TIDY_NAMESPACE: 'Not_A_Namespace' })).toThrow(/SWEEP_PLAN_NAMESPACE: /);
  });

  it('sweeps for real unless SWEEP_MODE=audit (plans and writes OpenReports); anything else is refused, naming the variable', () => {
    expect(readCleanupConfig({}).SWEEP_MODE).toBe('run');
    expect(readCleanupConfig({ SWEEP_MODE: 'audit' }).SWEEP_MODE).toBe('audit');
    expect(() => readCleanupConfig({ SWEEP_MODE: 'dry' })).toThrow(/SWEEP_MODE: /);
  });

  describe('how a pass runs', () => {
    it('pages, writes and spends time by the defaults, given to the handle in milliseconds', () => {
      const c = readCleanupConfig({});
      expect(c).toMatchObject({
        SWEEP_PAGE_SIZE: 500,
        SWEEP_TIME_BUDGET_SECONDS: 50,
        SWEEP_CONCURRENCY: DEFAULT_SWEEP_CONCURRENCY,
        SWEEP_EVENTS_PER_PASS: 100,
      });
      expect(sweepSettingsOf(c)).toEqual({ pageSize: 500, concurrency: 32, budgetMs: 50_000, eventsPerPass: 100 });
    });

    it('as set, the same whether read with the rest or alone (evacuation reads only these)', () => {
      const env = { SWEEP_PAGE_SIZE: '2', SWEEP_TIME_BUDGET_SECONDS: '7', SWEEP_CONCURRENCY: '256', SWEEP_EVENTS_PER_PASS: '0', INVOKE_TOKEN: 'short' };
      expect(sweepSettingsOf(readPassConfig(env))).toEqual({ pageSize: 2, concurrency: 256, budgetMs: 7000, eventsPerPass: 0 });
      expect(sweepSettingsOf(readCleanupConfig({ ...env, INVOKE_TOKEN: undefined }))).toEqual(sweepSettingsOf(readPassConfig(env)));
    });

    it.each([
      { env: { SWEEP_PAGE_SIZE: '0' }, problem: /SWEEP_PAGE_SIZE: / },
      { env: { SWEEP_PAGE_SIZE: '5001' }, problem: /SWEEP_PAGE_SIZE: / },
      { env: { SWEEP_TIME_BUDGET_SECONDS: '1.5' }, problem: /SWEEP_TIME_BUDGET_SECONDS: / },
      { env: { SWEEP_CONCURRENCY: '257' }, problem: /SWEEP_CONCURRENCY: / },
      { env: { SWEEP_EVENTS_PER_PASS: '-1' }, problem: /SWEEP_EVENTS_PER_PASS: / },
    ])('refuses $env, naming the variable', ({ env, problem }) => {
      expect(() => readCleanupConfig(env)).toThrow(ConfigError);
      expect(() => readCleanupConfig(env)).toThrow(problem);
      expect(() => readPassConfig(env)).toThrow(problem);
    });
  });

  describe('where shards go', () => {
    it('a broker URL, or Knative’s K_SINK when none is set', () => {
      expect(readCleanupConfig({ SWEEP_SHARD_SINK: 'http://broker/ns/default', K_SINK: 'http://other/' }).shardSink).toEqual({
        url: 'http://broker/ns/default',
      });
      expect(readCleanupConfig({ K_SINK: 'http://other/' }).shardSink).toEqual({ url: 'http://other/' });
      expect(readCleanupConfig({}).shardSink).toBeUndefined();
    });

    it('on GCP a Pub/Sub topic, ahead of K_SINK, with the emulator and metadata hosts Google’s libraries read', () => {
      expect(
        readCleanupConfig({
          SWEEP_SHARD_TOPIC: 'projects/my-proj/topics/kube-tidy-sweep-shards',
          K_SINK: 'http://other/',
          PUBSUB_EMULATOR_HOST: 'localhost:8085',
        }).shardSink,
      ).toEqual({ topic: 'projects/my-proj/topics/kube-tidy-sweep-shards', emulatorHost: 'localhost:8085' });
    });

    it('refuses a topic that is not a full topic name, both a sink and a topic, and a host with a path', () => {
      expect(() => readCleanupConfig({ SWEEP_SHARD_TOPIC: 'kube-tidy-sweep-shards' })).toThrow(
        /SWEEP_SHARD_TOPIC: expected projects\/<project>\/topics\/<topic>/,
      );
      expect(() => readCleanupConfig({ SWEEP_SHARD_TOPIC: 'projects/my-proj/topics/t1x', SWEEP_SHARD_SINK: 'http://broker/' })).toThrow(
        /SWEEP_SHARD_TOPIC: set SWEEP_SHARD_SINK or SWEEP_SHARD_TOPIC, not both/,
      );
      expect(() => readCleanupConfig({ PUBSUB_EMULATOR_HOST: 'evil.example/path' })).toThrow(/PUBSUB_EMULATOR_HOST: expected host or host:port/);
    });
  });
});
