import {
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { addReflection } from './reflection.ts';

/** Options every Engram gRPC server uses. */
const SERVER_OPTIONS = {
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
  'grpc.max_send_message_length': 16 * 1024 * 1024,
  'grpc.keepalive_time_ms': 60_000,
  'grpc.keepalive_timeout_ms': 20_000,
  'grpc.http2.min_ping_interval_without_data_ms': 10_000,
};

export interface ServiceRegistration {
  readonly definition: ServiceDefinition;
  readonly implementation: UntypedServiceImplementation;
}

/**
 * Builds a server with the given services and server reflection describing them; it does not
 * listen (main.ts and tests do).
 */
export function createGrpcServer(services: readonly ServiceRegistration[]): Server {
  const server = new Server(SERVER_OPTIONS);
  for (const s of services) server.addService(s.definition, s.implementation);
  addReflection(
    server,
    services.map((s) => s.definition),
  );
  return server;
}

/** Binds and returns the actual port (0 picks a free one). */
export function listen(server: Server, host: string, port: number): Promise<number> {
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return new Promise((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (err, actual) => {
      if (err) reject(err);
      else resolve(actual);
    });
  });
}

/** tryShutdown with a deadline, then forceShutdown. */
export function shutdownServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, timeoutMs);
    timer.unref();
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
