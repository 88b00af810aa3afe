/** A gRPC method by its service's full name and its name, as a service config names it. */
export interface MethodName {
  readonly service: string;
  readonly method: string;
}

/**
 * Attempts of a read, the first included, when the replica that served it fails under it: grpc-js's
 * most, with pauses of up to 0.1, 0.2, 0.4 and 0.8 s, so a replica just killed has left the round
 * robin before the last. grpc-js retries only a call it has no response headers for yet; the gateway
 * sends a read that failed after them once more itself (services/gateway/src/transcode.ts).
 */
export const READ_ATTEMPTS = 5;

/**
 * The service config of Engram's channels (grpc-js 'grpc.service_config'):
 * - round_robin over every address the target resolves to (a list `ipv4:10.0.0.1:50051,10.0.0.2:50051`
 *   or a DNS name with several A records, as a headless Kubernetes Service gives), so the replicas of
 *   a service share the load; pick_first, grpc-js's default, would send all of it to one;
 * - the given read-only methods retried on UNAVAILABLE, which is then the transport's (a replica
 *   that died or was unreachable): a service that answers UNAVAILABLE itself (its database is down)
 *   sends grpc-retry-pushback-ms -1, so that answer is not retried on a replica sharing the database.
 * Writes are not retried here: the caller retries them with their Idempotency-Key. RPCs that never
 * reached a server are retried transparently by grpc-js, writes included.
 */
export function channelServiceConfig(readOnly: readonly MethodName[] = []): string {
  const config: Record<string, unknown> = { loadBalancingConfig: [{ round_robin: {} }] };
  if (readOnly.length > 0) {
    config.methodConfig = [
      {
        name: readOnly.map((m) => ({ service: m.service, method: m.method })),
        retryPolicy: {
          maxAttempts: READ_ATTEMPTS,
          initialBackoff: '0.1s',
          maxBackoff: '1s',
          backoffMultiplier: 2,
          retryableStatusCodes: ['UNAVAILABLE'],
        },
      },
    ];
  }
  return JSON.stringify(config);
}

/** Trailer that tells a grpc-js client not to retry this answer (gRPC retry design, server pushback). */
export const NO_RETRY_PUSHBACK: readonly [string, string] = ['grpc-retry-pushback-ms', '-1'];
