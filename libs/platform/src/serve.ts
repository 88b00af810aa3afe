import { loadEngramConfig } from '@engram/config';
import {
  createGrpcServer,
  HealthStatus,
  listen,
  shutdownServer,
  type ServiceRegistration,
} from '@engram/grpc-kit';
import { runMain } from '@engram/runtime';
import { serveMetrics, type MetricsEndpoint } from './metrics-endpoint.ts';
import { configuredPeers, type Peers } from './peers.ts';
import { ServiceProcess } from './service-process.ts';

/** What a service's compose returns: its gRPC services, ready to put on a server. */
export interface ComposedService {
  /** The full names of the gRPC services (engram.memory.v1.MemoryStoreService, ...), for health. */
  readonly names: readonly string[];
  readonly services: readonly ServiceRegistration[];
  /** Lines for stdout once the process listens (memory-store: a system key generated on first start). */
  readonly notices?: readonly string[];
}

/**
 * The one factory signature of every Engram service (services/<name>/src/compose.ts): given the
 * process it runs in and where its peers are, it builds what it uses and nothing else.
 */
export type ServiceFactory<S extends ComposedService = ComposedService> = (
  proc: ServiceProcess,
  peers: Peers,
) => Promise<S>;

/**
 * Puts services and their live health map on one gRPC server, listens, serves GET /metrics on
 * ENGRAM_METRICS_PORT when set, and registers their shutdown steps (server phase: health NOT_SERVING,
 * drain with the deadline then force, the metrics listener).
 */
export async function serveServices(
  proc: ServiceProcess,
  composed: Pick<ComposedService, 'names' | 'services'>,
  port: number = proc.config.grpcPort,
): Promise<{
  port: number;
  health: HealthStatus;
  metricsPort: number | undefined;
  /** Everything the server carries (the services and their health), for an in-process invoker. */
  services: readonly ServiceRegistration[];
}> {
  const { names } = composed;
  const health = proc.health(names);
  const services = [
    ...composed.services,
    { definition: HealthStatus.definition, implementation: health.implementation() },
  ];
  const server = createGrpcServer(services);
  const { host, metricsPort } = proc.config;
  // Before the gRPC port, so that a taken metrics port fails the start with nothing left listening.
  const endpoint: MetricsEndpoint | undefined =
    metricsPort > 0 ? await serveMetrics(proc.metrics, host, metricsPort) : undefined;
  const actual = await listen(server, host, port).catch(async (err: unknown) => {
    await endpoint?.close();
    throw err;
  });
  proc.runtime.onShutdown(
    'grpc server',
    () => shutdownServer(server, proc.config.shutdownTimeoutMs),
    'server',
  );
  if (endpoint) proc.runtime.onShutdown('metrics endpoint', () => endpoint.close(), 'server');
  proc.logger.info({ port: actual, services: names, metrics_port: endpoint?.port }, 'gRPC server listening');
  return { port: actual, health, metricsPort: endpoint?.port, services };
}

/**
 * The main of a distributed service process (services/<name>/src/main.ts): settings from the
 * environment, the process, the service's compose with its peers at the *_ADDR settings, the gRPC
 * server, its notices, and the ordered shutdown on SIGTERM/SIGINT.
 */
export function runService(name: string, compose: ServiceFactory): void {
  runMain(name, async () => {
    const config = loadEngramConfig(process.env);
    const proc = await ServiceProcess.open({ config, service: name });
    const composed = await compose(proc, configuredPeers(config));
    await serveServices(proc, composed);
    for (const line of composed.notices ?? []) process.stdout.write(`${name}: ${line}\n`);
    proc.runtime.onShutdown('stopped', () => proc.logger.info(`${name} stopped`), 'telemetry');
    proc.runtime.installSignalHandlers();
  });
}
