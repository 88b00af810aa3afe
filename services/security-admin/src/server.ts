import type { Principal } from '@engram/auth';
import { bindService, type ServiceRegistration } from '@engram/grpc-kit';
import { VerifiedReader } from '@engram/memories';
import type { Peers, Platform } from '@engram/platform';
import { SecurityAdminServiceService } from '@engram/proto/engram/security/v1/security';
import { GrpcScanClient } from './clients/scan-client.ts';
import { securityAdminHandlers } from './handlers/security-admin-handlers.ts';
import { KnexSecurityReadRepository } from './storage/security-read-repository.ts';

export const SECURITY_ADMIN_SERVICE_NAMES = ['engram.security.v1.SecurityAdminService'] as const;

/**
 * The gRPC services of security-admin: audit log, flagged memories, verify and config read the
 * database through the read connection; scan asks ingest-security. Privileged or system only.
 */
export function securityAdminServices(platform: Platform, peers: Peers): ServiceRegistration[] {
  const { config, secrets } = platform;
  const logger = platform.logger.child({ component: 'security-admin' });
  const describe = (p: Principal) => ({ projectId: p.projectId, keyId: p.keyId });
  const scanner = new GrpcScanClient(peers.ingestSecurity, secrets.internalToken);
  platform.addCloser(() => scanner.close());
  const reader = new VerifiedReader(
    {
      key: secrets.integrityKey,
      mode: config.integrityReadMode,
      requireSigned: config.integrityRequireSigned,
    },
    platform.db.knex,
    platform.notifyCommitted,
    platform.metrics,
  );
  const handlers = securityAdminHandlers({
    repo: new KnexSecurityReadRepository(platform.db),
    reader,
    config,
    scanner,
  });
  return [
    {
      definition: SecurityAdminServiceService,
      implementation: bindService(SecurityAdminServiceService, handlers, {
        authenticate: platform.authenticator.authenticate,
        logger,
        describe,
        metrics: platform.metrics,
        idempotency: platform.idempotency,
        internalToken: platform.secrets.internalToken,
      }),
    },
  ];
}
