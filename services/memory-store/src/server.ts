import type { Principal } from '@engram/auth';
import type { Embedder } from '@engram/embeddings';
import { bindService, type ServiceRegistration } from '@engram/grpc-kit';
import { VerifiedReader } from '@engram/memories';
import type { Platform } from '@engram/platform';
import { AdminServiceService } from '@engram/proto/engram/admin/v1/admin';
import {
  MemoryStoreServiceService,
  MemoryWriterServiceService,
} from '@engram/proto/engram/memory/v1/memory_store';
import { agentlessKeysWarning, KeyService } from './domain/keys.ts';
import { legacySignatureWarning } from './domain/legacy-signature-warning.ts';
import type { MemoryRepository } from './domain/ports.ts';
import { adminHandlers } from './handlers/admin-handlers.ts';
import { memoryStoreHandlers } from './handlers/memory-store-handlers.ts';
import { writerHandlers } from './handlers/writer-handlers.ts';
import { KnexKeyRepository } from './storage/key-repository.ts';
import { KnexMemoryRepository } from './storage/memory-repository.ts';

export const MEMORY_STORE_SERVICE_NAMES = [
  'engram.memory.v1.MemoryStoreService',
  'engram.memory.v1.MemoryWriterService',
  'engram.admin.v1.AdminService',
] as const;

export interface MemoryStoreDeps {
  readonly platform: Platform;
  readonly embedder: Embedder;
}

/** The gRPC services memory-store serves; the caller puts them on a server (it never listens). */
export function memoryStoreServices({ platform, embedder }: MemoryStoreDeps): {
  services: ServiceRegistration[];
  keys: KeyService;
} {
  const { config, secrets, authenticator } = platform;
  const repo = new KnexMemoryRepository(platform.db, platform.notifyCommitted, platform.metrics);
  const keyRepo = new KnexKeyRepository(platform.db, platform.notifyCommitted);
  const keys = new KeyService(keyRepo);
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
  const logger = platform.logger.child({ component: 'memory-store' });
  if (config.integrityRequireSigned) void warnAboutLegacySignatures(repo, logger);
  void warnAboutAgentlessKeys(keyRepo, logger);
  const describe = (p: Principal) => ({ projectId: p.projectId, keyId: p.keyId });
  const bind = {
    authenticate: authenticator.authenticate,
    logger,
    describe,
    metrics: platform.metrics,
    idempotency: platform.idempotency,
    internalToken: secrets.internalToken,
  };
  return {
    keys,
    services: [
      {
        definition: MemoryStoreServiceService,
        implementation: bindService(
          MemoryStoreServiceService,
          memoryStoreHandlers({
            repo,
            reader,
            integrityKey: secrets.integrityKey,
          }),
          bind,
        ),
      },
      {
        definition: MemoryWriterServiceService,
        implementation: bindService(
          MemoryWriterServiceService,
          writerHandlers({ repo, embedder, integrityKey: secrets.integrityKey }),
          { ...bind, authenticate: authenticator.authenticateInternal },
        ),
      },
      {
        definition: AdminServiceService,
        implementation: bindService(AdminServiceService, adminHandlers(keys), bind),
      },
    ],
  };
}

/**
 * INTEGRITY_REQUIRE_SIGNED=true with unsigned or v1 rows in the store: say how many and how to
 * backfill, on stderr and in the log (the process still starts: drop mode keeps tampered and
 * unsigned rows away from readers meanwhile).
 */
async function warnAboutLegacySignatures(repo: MemoryRepository, logger: Platform['logger']): Promise<void> {
  try {
    const counts = await repo.legacySignatureCounts();
    const message = legacySignatureWarning(counts, true);
    if (message === undefined) return;
    logger.warn({ unsigned: counts.unsigned, v1: counts.v1 }, message);
    process.stderr.write(`engram: warning: ${message}\n`);
  } catch (err) {
    logger.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'could not count legacy signatures',
    );
  }
}

/**
 * Unbound untrusted and internal keys from before agent_ids/any_agent act for no agent (the migration
 * gave them neither; docs/decisions.md): say how many and how to replace them, on stderr and in the log.
 */
async function warnAboutAgentlessKeys(repo: KnexKeyRepository, logger: Platform['logger']): Promise<void> {
  try {
    const message = agentlessKeysWarning(await repo.countAgentlessKeys());
    if (message === undefined) return;
    logger.warn(message);
    process.stderr.write(`engram: warning: ${message}\n`);
  } catch (err) {
    logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not count agentless keys');
  }
}
