import { bindService } from '@engram/grpc-kit';
import type { ComposedService, Peers, ServiceProcess } from '@engram/platform';
import { SecurityAdminServiceService } from '@engram/proto/engram/security/v1/security';
import { GrpcScanClient, InProcessScanClient } from './clients/scan-client.ts';
import { securityAdminConfig } from './config.ts';
import { securityAdminHandlers } from './handlers/security-admin-handlers.ts';
import { KnexSecurityReadRepository } from './storage/security-read-repository.ts';

export const SECURITY_ADMIN_SERVICE_NAMES = ['engram.security.v1.SecurityAdminService'] as const;

/**
 * security-admin: audit log, flagged memories, verify and config read the database through the
 * read connection; scan asks ingest-security. Privileged or system keys only.
 */
export async function composeSecurityAdmin(proc: ServiceProcess, peers: Peers): Promise<ComposedService> {
  const { published } = securityAdminConfig(proc.config);
  const token = proc.secrets.internalToken;
  const scanner = peers.inProcess
    ? new InProcessScanClient(peers.inProcess, token)
    : new GrpcScanClient(peers.ingestSecurity, token);
  proc.addCloser('ingest-security client', () => scanner.close());
  const handlers = securityAdminHandlers({
    repo: new KnexSecurityReadRepository(await proc.database()),
    reader: await proc.verifiedReader(),
    published,
    scanner,
  });
  return {
    names: SECURITY_ADMIN_SERVICE_NAMES,
    services: [
      {
        definition: SecurityAdminServiceService,
        implementation: bindService(
          SecurityAdminServiceService,
          handlers,
          await proc.binding('security-admin', [SecurityAdminServiceService]),
        ),
      },
    ],
  };
}
