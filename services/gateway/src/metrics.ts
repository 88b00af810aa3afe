import { engramMetrics, METRICS } from '@engram/telemetry';
import { Registry } from 'prom-client';

/** Request metrics of the gateway, labelled by route template (never the raw path). */
export interface GatewayMetrics {
  readonly registry: Registry;
  observe(method: string, route: string, status: number, seconds: number): void;
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Registers http_requests_total, http_request_duration_seconds (from the catalogue of
 * @engram/telemetry, docs/metrics.md) and the default process metrics on the registry (a new one
 * when none is given). Metrics the registry already holds are reused, so the embedded process
 * serves the gateway's and the services' metrics from one registry.
 */
export function createGatewayMetrics(registry: Registry = new Registry()): GatewayMetrics {
  const metrics = engramMetrics(registry);
  const requests = metrics.counter(METRICS.httpRequests);
  const duration = metrics.histogram(METRICS.httpRequestDuration);
  return {
    registry,
    observe(method, route, status, seconds) {
      // Unknown methods share one label value, so clients cannot grow the series without bound.
      const m = KNOWN_METHODS.has(method) ? method : 'OTHER';
      requests.inc({ method: m, route, status: String(status) });
      duration.observe({ route }, seconds);
    },
  };
}
