import { DEFAULT_METRICS_NOTE, LABEL_VALUES, METRICS, type MetricDef } from './catalogue.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|');

function row(def: MetricDef): string {
  const labels = def.labels.length === 0 ? '(none)' : def.labels.map((l) => `\`${l}\``).join(', ');
  const buckets = def.buckets ? ` Buckets: ${def.buckets.join(', ')}.` : '';
  return `| \`${def.name}\` | ${def.type} | ${labels} | ${cell(def.exportedBy)} | ${cell(def.help)}${buckets} |`;
}

/** The labels the catalogue uses, in order of first use. */
export function catalogueLabels(): string[] {
  return [...new Set(Object.values(METRICS).flatMap((d: MetricDef) => [...d.labels]))];
}

/** docs/metrics.md: printed by scripts/gen-metrics-docs.ts (make docs; make check-docs compares). */
export function renderMetricsDoc(): string {
  const metrics = Object.values(METRICS).map((d: MetricDef) => row(d));
  const labels = catalogueLabels().map((l) => `| \`${l}\` | ${cell(LABEL_VALUES[l] ?? '')} |`);
  return `# Metrics

Prometheus metrics of every Engram process. Generated from libs/telemetry/src/metrics/catalogue.ts
by \`make docs\`; \`make check-docs\` fails when this file is stale.

Where they are served:

- each gRPC service process (ingest-security, memory-store, retrieval-ranking, ace-feedback,
  security-admin): \`GET /metrics\` on \`ENGRAM_METRICS_PORT\` (0, the default, serves none; the
  Kubernetes manifests set 9464, where deploy/k8s/servicemonitor.yaml scrapes it). That listener
  answers nothing else.
- the gateway: \`GET /metrics\` on its HTTP port (\`ENGRAM_HTTP_PORT\`), kept inside the cluster by
  the Ingress.
- all-in-one (embedded): one registry for the whole process, on the gateway's \`GET /metrics\`
  (and on \`ENGRAM_METRICS_PORT\` too when set).

A process exports the metrics of what it does: the gateway has no outbox or pool gauges, a
gRPC service no \`http_*\` series. Counters and histograms with labels appear once a first value is
recorded.

| name | type | labels | exported by | meaning |
|---|---|---|---|---|
${metrics.join('\n')}

${DEFAULT_METRICS_NOTE}

## Labels

Every label takes values from a bounded set; none carries an id, a path, a project or content.

| label | values |
|---|---|
${labels.join('\n')}
`;
}
