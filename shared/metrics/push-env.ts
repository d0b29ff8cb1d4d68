// Whether a process pushes over OTLP: the standard OpenTelemetry endpoint variables, the
// generic one (the exporter appends /v1/metrics) or the metrics one (used as is).
export function pushes(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}
