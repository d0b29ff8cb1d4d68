// The OpenTelemetry SDK behind recorder.ts (one per recorder), loaded on first need (it is not free at a cold
// start). One instrumentation, two exporters: a Prometheus reader that exposition.ts
// serializes on a scrape (standalone mode), and, when the standard
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is set, an OTLP/HTTP
// reader that pushes (serverless targets: a scaled-to-zero instance cannot be scraped).
// The OTLP exporter reads the rest of the standard OTEL_EXPORTER_OTLP_* settings itself
// (headers, timeout); OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name the instance.
import { randomUUID } from 'node:crypto';
import type { Attributes, Meter } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type MetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { METRICS, type MetricDef, type MetricKey } from './catalogue.js';
import { pushes } from './push-env.js';

export interface Sdk {
  /** Adds to a counter, records in a histogram, sets a gauge (the catalogue's kind says which). */
  add(key: MetricKey, value: number, labels: Attributes): void;
  /** The Prometheus text exposition of everything recorded so far. */
  scrape(): Promise<string>;
  /** Push what is recorded over OTLP now (no-op without an OTLP endpoint); rejects if an export failed meanwhile. */
  flush(): Promise<void>;
  readonly otlp: boolean;
  shutdown(): Promise<void>;
}

export function startSdk(env: NodeJS.ProcessEnv = process.env): Sdk {
  // No HTTP server of its own: the process's server (or a test) serves /metrics.
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const readers: MetricReader[] = [prometheus];
  const otlp = pushes(env);
  let pushing: PeriodicExportingMetricReader | undefined;
  let failedExports = 0;
  if (otlp) {
    pushing = otlpReader(() => failedExports++);
    readers.push(pushing);
  }
  const provider = new MeterProvider({ resource: resourceOf(env), readers });
  const instruments = instrumentsOf(provider.getMeter('kube-tidy'));
  // No otel_scope_name label on every series: one scope, it would only add noise to queries.
  const serializer = new PrometheusSerializer(undefined, false, undefined, false, true);
  return {
    otlp,
    add(key, value, labels) {
      instruments.get(key)!(value, labels);
    },
    async scrape() {
      const { resourceMetrics, errors } = await prometheus.collect();
      if (errors.length) throw new AggregateError(errors, 'metrics collection failed');
      return serializer.serialize(resourceMetrics);
    },
    async flush() {
      const failedBefore = failedExports;
      await pushing?.forceFlush();
      if (failedExports > failedBefore) throw new Error('OTLP metrics export failed');
    },
    shutdown: () => provider.shutdown(),
  };
}

/**
 * The OTLP/HTTP reader. Flushed at the end of every request (recorder.ts afterRequest); the
 * period only covers a process that lives on between requests (standalone, min-scale > 0).
 * The reader's forceFlush swallows a failed export: the exporter is wrapped to count them.
 */
function otlpReader(onFailedExport: () => void): PeriodicExportingMetricReader {
  const inner = new OTLPMetricExporter();
  const exporter: PushMetricExporter = {
    export: (metrics, done) =>
      inner.export(metrics, (result) => {
        // ExportResultCode.SUCCESS (@opentelemetry/core, not a dependency of ours) is 0.
        if (result.code !== 0) onFailedExport();
        done(result);
      }),
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
    selectAggregationTemporality: (kind) => inner.selectAggregationTemporality(kind),
    selectAggregation: (kind) => inner.selectAggregation(kind),
  };
  return new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
}

function resourceOf(env: NodeJS.ProcessEnv) {
  return (
    defaultResource()
      // service.instance.id: a receiver keeps each instance's cumulative series apart.
      .merge(
        resourceFromAttributes({
          'service.name': 'kube-tidy',
          'service.instance.id': randomUUID(),
          ...(env.FUNCTION_TARGET ? { 'faas.name': env.FUNCTION_TARGET } : {}),
        }),
      )
      .merge(detectResources({ detectors: [envDetector] }))
  );
}

/** One instrument per catalogue metric, of the kind the catalogue says, as one recording call. */
function instrumentsOf(meter: Meter): Map<MetricKey, (value: number, labels: Attributes) => void> {
  const instruments = new Map<MetricKey, (value: number, labels: Attributes) => void>();
  for (const [key, def] of Object.entries(METRICS) as [MetricKey, MetricDef][]) {
    switch (def.kind) {
      case 'counter': {
        // The SDK's Prometheus side appends _total to a monotonic counter's name.
        const counter = meter.createCounter(def.name.replace(/_total$/, ''), { description: def.help });
        instruments.set(key, (v, l) => counter.add(v, l));
        break;
      }
      case 'histogram': {
        const histogram = meter.createHistogram(def.name, { description: def.help, unit: 's', advice: { explicitBucketBoundaries: [...(def.buckets ?? [])] } });
        instruments.set(key, (v, l) => histogram.record(v, l));
        break;
      }
      case 'gauge': {
        // Synchronous: the last value set per series, kept (and exported) until set again.
        const gauge = meter.createGauge(def.name, { description: def.help });
        instruments.set(key, (v, l) => gauge.record(v, l));
        break;
      }
    }
  }
  return instruments;
}
