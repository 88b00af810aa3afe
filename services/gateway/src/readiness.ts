import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import {
  HealthCheckRequest,
  HealthCheckResponse,
  HealthCheckResponse_ServingStatus,
  HealthService,
} from '@engram/proto/grpc/health/v1/health';
import type { Upstreams } from './upstream.ts';

/** The readiness of one upstream address, as /readyz reports it. */
export interface UpstreamReadiness {
  readonly address: string;
  readonly services: readonly string[];
  /** SERVING, NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN, or the gRPC code of a failed check. */
  readonly status: string;
}

export interface ReadinessReport {
  readonly ready: boolean;
  readonly upstreams: readonly UpstreamReadiness[];
}

export const READINESS_TIMEOUT_MS = 1000;

/**
 * Asks every distinct upstream grpc.health.v1.Health/Check("") the way the gateway makes its calls
 * (its channel, or in-process when embedded); ready only when all answer SERVING within the timeout.
 */
export async function checkReadiness(
  pool: Upstreams,
  timeoutMs: number = READINESS_TIMEOUT_MS,
): Promise<ReadinessReport> {
  const request = HealthCheckRequest.encode({ service: '' }).finish();
  const upstreams = await Promise.all(
    [...pool.addresses()].map(async ([address, services]): Promise<UpstreamReadiness> => {
      try {
        const bytes = await pool.unaryAt(address, HealthService.check.path, request, {
          metadata: new Metadata(),
          deadline: new Date(Date.now() + timeoutMs),
        });
        const { status } = HealthCheckResponse.decode(bytes);
        return { address, services, status: HealthCheckResponse_ServingStatus[status] ?? 'UNKNOWN' };
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        const name = typeof code === 'number' ? GrpcStatus[code] : undefined;
        return { address, services, status: name ?? 'UNREACHABLE' };
      }
    }),
  );
  return { ready: upstreams.every((u) => u.status === 'SERVING'), upstreams };
}
