import {
  createGrpcServer,
  HealthStatus,
  listen,
  shutdownServer,
  type ServiceRegistration,
} from '@engram/grpc-kit';
import type { Platform } from './platform.ts';

/**
 * Puts services and their live health map on one gRPC server, listens, and registers the ordered
 * shutdown: health NOT_SERVING -> server drain (deadline, then force) -> relay, NATS, pools.
 */
export async function serveServices(
  platform: Platform,
  services: readonly ServiceRegistration[],
  names: readonly string[],
  port: number = platform.config.grpcPort,
): Promise<{ port: number; health: HealthStatus }> {
  const health = platform.health(names);
  const server = createGrpcServer([
    ...services,
    { definition: HealthStatus.definition, implementation: health.implementation() },
  ]);
  const actual = await listen(server, platform.config.host, port);
  platform.runtime.onShutdown('grpc server', () => shutdownServer(server, platform.config.shutdownTimeoutMs));
  platform.runtime.onShutdown('platform', () => platform.close());
  platform.logger.info({ port: actual, services: names }, 'gRPC server listening');
  return { port: actual, health };
}

/** Runs a process entry point: a startup failure is one clear line and exit code 1, never a stack dump. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`${name}: failed to start: ${message}\n`);
    process.exit(1);
  });
}
