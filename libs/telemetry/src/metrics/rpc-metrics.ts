import { METRICS } from './catalogue.ts';
import type { EngramMetrics } from './engram-metrics.ts';

export type RpcType = 'unary' | 'server_stream';

/**
 * gRPC status codes as go-grpc-prometheus labels them (Go's codes.Code.String()), by number, so
 * dashboards and alerts written for it (grpc_code="Unavailable") work unchanged.
 */
export const GRPC_CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
] as const;

export function grpcCodeName(code: number): string {
  return GRPC_CODE_NAMES[code] ?? 'Unknown';
}

/** One RPC in flight: `end` records its status and duration (once; later calls are ignored). */
export interface RpcObservation {
  end(code: number): void;
}

/**
 * Counts the start of the RPC at `path` (/package.Service/Method: both parts come from the service
 * definition, a bounded set) and returns the observation that records its outcome.
 */
export function observeRpc(metrics: EngramMetrics, path: string, type: RpcType): RpcObservation {
  const slash = path.lastIndexOf('/');
  const labels = { grpc_type: type, grpc_service: path.slice(1, slash), grpc_method: path.slice(slash + 1) };
  metrics.counter(METRICS.grpcServerStarted).inc(labels);
  const started = process.hrtime.bigint();
  let ended = false;
  return {
    end(code) {
      if (ended) return;
      ended = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.counter(METRICS.grpcServerHandled).inc({ ...labels, grpc_code: grpcCodeName(code) });
      metrics.histogram(METRICS.grpcServerHandlingSeconds).observe(labels, seconds);
    },
  };
}
