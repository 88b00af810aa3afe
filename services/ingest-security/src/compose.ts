import { isPrivileged, type Principal } from '@engram/auth';
import { PermissionDeniedError } from '@engram/errors';
import type { KeyAuthenticator } from '@engram/access';
import { bindService, INTERNAL_TOKEN_HEADER } from '@engram/grpc-kit';
import type { ComposedService, Peers, ServiceProcess } from '@engram/platform';
import type { Metadata } from '@grpc/grpc-js';
import { IngestServiceService } from '@engram/proto/engram/ingest/v1/ingest';
import { GrpcMemoryWriter, InProcessMemoryWriter } from './clients/memory-writer-client.ts';
import { ingestConfig } from './config.ts';
import { ingestHandlers } from './handlers/ingest-handlers.ts';

export const INGEST_SERVICE_NAMES = ['engram.ingest.v1.IngestService'] as const;

/**
 * Authentication per method: IngestInternal only with the internal token (plus the caller's key);
 * ScanContent with the internal token, or directly by a privileged or system key; the rest with
 * an API key.
 */
function authenticatorOf({ authenticate, authenticateInternal }: KeyAuthenticator) {
  return async (metadata: Metadata, method: string): Promise<Principal> => {
    if (method.endsWith('/IngestInternal')) return authenticateInternal(metadata);
    if (method.endsWith('/ScanContent')) {
      if (metadata.get(INTERNAL_TOKEN_HEADER).length > 0) return authenticateInternal(metadata);
      const principal = await authenticate(metadata);
      if (!isPrivileged(principal)) {
        throw new PermissionDeniedError('scanning needs a privileged or system key', 'ADMIN_REQUIRED');
      }
      return principal;
    }
    return authenticate(metadata);
  };
}

/**
 * ingest-security: every write is screened here, then stored by memory-store's MemoryWriterService.
 * It keeps no tables and records no events itself (memory-store commits each verdict with its
 * memory), so it uses the database only for keys and Idempotency-Keys: no outbox relay, no NATS.
 */
export async function composeIngestSecurity(
  proc: ServiceProcess,
  peers: Peers,
): Promise<ComposedService & { policyVersion: string }> {
  const settings = { ...ingestConfig(proc.config), metrics: proc.metrics };
  const token = proc.secrets.internalToken;
  const writer = peers.inProcess
    ? new InProcessMemoryWriter(peers.inProcess, token)
    : new GrpcMemoryWriter(peers.memoryStore, token);
  proc.addCloser('memory-store client', () => writer.close());
  const binding = await proc.binding(
    'ingest-security',
    [IngestServiceService],
    authenticatorOf(await proc.authenticator()),
  );
  proc.logger.info({ policy_version: settings.policyVersion }, 'content policy loaded');
  return {
    names: INGEST_SERVICE_NAMES,
    policyVersion: settings.policyVersion,
    services: [
      {
        definition: IngestServiceService,
        implementation: bindService(IngestServiceService, ingestHandlers({ writer, settings }), binding),
      },
    ],
  };
}
