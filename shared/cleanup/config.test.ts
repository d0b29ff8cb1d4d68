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

  it('keeps shard plans in KUBE_TIDY_NAMESPACE (the manifests set it), unless SWEEP_PLAN_NAMESPACE says otherwise, else kube-tidy', () => {
    expect(readCleanupConfig({}).SWEEP_PLAN_NAMESPACE).toBe('kube-tidy');
    expect(readCleanupConfig({ KUBE_TIDY_NAMESPACE: 'ops' }).SWEEP_PLAN_NAMESPACE).toBe('ops');
    expect(readCleanupConfig({ KUBE_TIDY_NAMESPACE: 'ops', SWEEP_PLAN_NAMESPACE: 'plans' }).SWEEP_PLAN_NAMESPACE).toBe('plans');
    expect(() => readCleanupConfig({ KUBE_TIDY_NAMESPACE: 'Not_A_Namespace' })).toThrow(/SWEEP_PLAN_NAMESPACE: /);
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
