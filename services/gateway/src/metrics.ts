import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Request metrics of the gateway, labelled by route template (never the raw path). */
export interface GatewayMetrics {
  readonly registry: Registry;
  observe(method: string, route: string, status: number, seconds: number): void;
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Registers http_requests_total, http_request_duration_seconds and the default process metrics on
 * the registry (a new one when none is given). Metrics the registry already holds are reused, so
 * an embedded process may share one registry between components.
 */
export function createGatewayMetrics(registry: Registry = new Registry()): GatewayMetrics {
  if (registry.getSingleMetric('process_cpu_user_seconds_total') === undefined) {
    collectDefaultMetrics({ register: registry });
  }
  const requests =
    (registry.getSingleMetric('http_requests_total') as Counter<'method' | 'route' | 'status'> | undefined) ??
    new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route template and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    });
  const duration =
    (registry.getSingleMetric('http_request_duration_seconds') as Histogram<'route'> | undefined) ??
    new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route template.',
      labelNames: ['route'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
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
