import {
  createGrpcServer,
  HealthStatus,
  listen,
  shutdownServer,
  type ServiceRegistration,
} from '@engram/grpc-kit';
import { serveMetrics, type MetricsEndpoint } from './metrics-endpoint.ts';
import type { Platform } from './platform.ts';

/**
 * Puts services and their live health map on one gRPC server, listens, serves GET /metrics on
 * ENGRAM_METRICS_PORT when set, and registers the ordered shutdown: health NOT_SERVING -> server
 * drain (deadline, then force) -> metrics listener -> relay, NATS, pools.
 */
export async function serveServices(
  platform: Platform,
  services: readonly ServiceRegistration[],
  names: readonly string[],
  port: number = platform.config.grpcPort,
): Promise<{ port: number; health: HealthStatus; metricsPort: number | undefined }> {
  const health = platform.health(names);
  const server = createGrpcServer([
    ...services,
    { definition: HealthStatus.definition, implementation: health.implementation() },
  ]);
  const { host, metricsPort } = platform.config;
  // Before the gRPC port, so that a taken metrics port fails the start with nothing left listening.
  const endpoint: MetricsEndpoint | undefined =
    metricsPort > 0 ? await serveMetrics(platform.metrics, host, metricsPort) : undefined;
  const actual = await listen(server, host, port).catch(async (err: unknown) => {
    await endpoint?.close();
    throw err;
  });
  platform.runtime.onShutdown('grpc server', () => shutdownServer(server, platform.config.shutdownTimeoutMs));
  if (endpoint) platform.runtime.onShutdown('metrics endpoint', () => endpoint.close());
  platform.runtime.onShutdown('platform', () => platform.close());
  platform.logger.info(
    { port: actual, services: names, metrics_port: endpoint?.port },
    'gRPC server listening',
  );
  return { port: actual, health, metricsPort: endpoint?.port };
}

/** Runs a process entry point: a startup failure is one clear line and exit code 1, never a stack dump. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`${name}: failed to start: ${message}\n`);
    process.exit(1);
  });
}
