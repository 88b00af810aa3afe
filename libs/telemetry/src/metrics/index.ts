export { DEFAULT_METRICS_NOTE, LABEL_VALUES, LATENCY_BUCKETS, METRICS } from './catalogue.ts';
export type { MetricDef, MetricType } from './catalogue.ts';
export { EngramMetrics, engramMetrics } from './engram-metrics.ts';
export { catalogueLabels, renderMetricsDoc } from './metrics-doc.ts';
export { GRPC_CODE_NAMES, grpcCodeName, observeRpc } from './rpc-metrics.ts';
export type { RpcObservation, RpcType } from './rpc-metrics.ts';
export { OUTBOX_SAMPLE_TIMEOUT_MS, watchOutbox, watchPools } from './sampled-gauges.ts';
export type { OutboxBacklog, PoolUsage } from './sampled-gauges.ts';
