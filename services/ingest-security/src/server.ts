import { isPrivileged, type Principal } from '@engram/auth';
import { PermissionDeniedError } from '@engram/errors';
import { bindService, INTERNAL_TOKEN_HEADER, type ServiceRegistration } from '@engram/grpc-kit';
import type { Peers, Platform } from '@engram/platform';
import type { Metadata } from '@grpc/grpc-js';
import { GrpcMemoryWriter } from './clients/memory-writer-client.ts';
import { IngestServiceService } from '@engram/proto/engram/ingest/v1/ingest';
import { computePolicyVersion, contentPolicyOf, stage4Of } from '@engram/security-rules';
import type { MemoryWriter } from './domain/ports.ts';
import type { PipelineSettings } from './domain/write-pipeline.ts';
import { ingestHandlers } from './handlers/ingest-handlers.ts';

export const INGEST_SERVICE_NAMES = ['engram.ingest.v1.IngestService'] as const;

/**
 * Authentication per method: IngestInternal only with the internal token (plus the caller's key);
 * ScanContent with the internal token, or directly by a privileged or system key; the rest with
 * an API key.
 */
function authenticatorOf(platform: Platform) {
  const { authenticate, authenticateInternal } = platform.authenticator;
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

/** The gRPC services ingest-security serves; the caller puts them on a server. */
export function ingestServices(
  platform: Platform,
  peers: Peers,
): { services: ServiceRegistration[]; policyVersion: string } {
  const { config } = platform;
  const writer: MemoryWriter = new GrpcMemoryWriter(peers.memoryStore, platform.secrets.internalToken);
  platform.addCloser(() => writer.close());
  const policyVersion = computePolicyVersion(config);
  const stage4 = stage4Of(config);
  const settings: PipelineSettings = {
    limits: {
      contentMaxLength: config.contentMaxLength,
      metadataMaxDepth: config.metadataMaxDepth,
      metadataMaxKeys: config.metadataMaxKeys,
    },
    enableTrustLevels: config.enableTrustLevels,
    policyVersion,
    policy: contentPolicyOf(config),
    classifier: stage4?.classifier,
    classifierEscalation: stage4?.escalation,
    classifierThreshold: config.injectionClassifierConfidenceThreshold,
    metrics: platform.metrics,
  };
  const logger = platform.logger.child({ component: 'ingest-security' });
  const describe = (p: Principal) => ({ projectId: p.projectId, keyId: p.keyId });
  return {
    policyVersion,
    services: [
      {
        definition: IngestServiceService,
        implementation: bindService(IngestServiceService, ingestHandlers({ writer, settings }), {
          authenticate: authenticatorOf(platform),
          logger,
          describe,
          metrics: platform.metrics,
          idempotency: platform.idempotency,
          internalToken: platform.secrets.internalToken,
        }),
      },
    ],
  };
}
