import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/env.js';
import { readConfig } from '../runtime/config.js';
import { readEventsConfig } from './config.js';

describe('where the events go', () => {
  it.each([
    ['no sink: off', {}, undefined],
    ['EVENTS_SINK', { EVENTS_SINK: 'http://broker.example/ns/default' }, { url: 'http://broker.example/ns/default' }],
    [
      "K_SINK, what Knative's SinkBinding injects",
      { K_SINK: 'http://broker-ingress.knative-eventing.svc/ns/b' },
      { url: 'http://broker-ingress.knative-eventing.svc/ns/b' },
    ],
    ['EVENTS_SINK wins over K_SINK', { EVENTS_SINK: 'https://hooks.example/x', K_SINK: 'http://k/' }, { url: 'https://hooks.example/x' }],
    ['an empty EVENTS_SINK is not set: K_SINK', { EVENTS_SINK: '', K_SINK: 'http://k/' }, { url: 'http://k/' }],
    ['EVENTS_SINK=none turns a K_SINK off', { EVENTS_SINK: 'none', K_SINK: 'http://k/' }, undefined],
    ['EVENTS_TOPIC: Pub/Sub', { EVENTS_TOPIC: 'projects/my-project/topics/kube-tidy-events' }, { topic: 'projects/my-project/topics/kube-tidy-events' }],
  ])('%s', (_name, env, sink) => {
    expect(readEventsConfig(env)?.sink).toEqual(sink);
  });

  it('defaults: a bounded buffer, a few sends in flight, a 2 s timeout, 10 s sink-down, batches of 500', () => {
    expect(readEventsConfig({ EVENTS_SINK: 'http://a/' })).toEqual({
      sink: { url: 'http://a/' },
      source: 'kube-tidy',
      buffer: 10_000,
      inFlight: 4,
      sendTimeoutMs: 2_000,
      sinkDownMs: 10_000,
      flushMs: 1_000,
      batchSize: 500,
    });
  });

  it.each([
    ['a sink that is not a URL', { EVENTS_SINK: 'broker' }, /EVENTS_SINK/],
    ['a sink that is not http(s)', { EVENTS_SINK: 'ftp://a/' }, /EVENTS_SINK/],
    ['a bad K_SINK', { K_SINK: 'nope' }, /K_SINK/],
    ['a topic not in projects/P/topics/T form', { EVENTS_TOPIC: 'kube-tidy-events' }, /EVENTS_TOPIC/],
    ['both a sink and a topic', { EVENTS_SINK: 'http://a/', EVENTS_TOPIC: 'projects/my-project/topics/t1' }, /only one of EVENTS_SINK/],
    ['a source with a trailing slash', { EVENTS_SINK: 'http://a/', EVENTS_SOURCE: 'kube-tidy/' }, /EVENTS_SOURCE/],
    ['a zero buffer', { EVENTS_SINK: 'http://a/', EVENTS_BUFFER: '0' }, /EVENTS_BUFFER/],
  ])('%s stops the process at start (the runtime reads the same settings)', (_name, env, problem) => {
    expect(() => readEventsConfig(env)).toThrow(ConfigError);
    expect(() => readEventsConfig(env)).toThrow(problem);
    expect(() => readConfig({ POLICY_FILE: '/p.yaml', ...env })).toThrow(problem);
  });
});
