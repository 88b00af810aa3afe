import { bindService } from '@engram/grpc-kit';
import type { Logger } from '@engram/logger';
import type { ComposedService, Peers, ServiceProcess } from '@engram/platform';
import { AdminServiceService } from '@engram/proto/engram/admin/v1/admin';
import {
  MemoryStoreServiceService,
  MemoryWriterServiceService,
} from '@engram/proto/engram/memory/v1/memory_store';
import { memoryStoreMigrations } from '../migrations/index.ts';
import { memoryStoreConfig } from './config.ts';
import { agentlessKeysWarning, KeyService } from './domain/keys.ts';
import { legacySignatureWarning } from './domain/legacy-signature-warning.ts';
import type { MemoryRepository } from './domain/ports.ts';
import { adminHandlers } from './handlers/admin-handlers.ts';
import { memoryStoreHandlers } from './handlers/memory-store-handlers.ts';
import { writerHandlers } from './handlers/writer-handlers.ts';
import { pinEmbeddingSpace } from './storage/embedding-space.ts';
import { KnexKeyRepository } from './storage/key-repository.ts';
import { KnexMemoryRepository } from './storage/memory-repository.ts';

export const MEMORY_STORE_SERVICE_NAMES = [
  'engram.memory.v1.MemoryStoreService',
  'engram.memory.v1.MemoryWriterService',
  'engram.admin.v1.AdminService',
] as const;

/** memory-store's composition; `generatedKey` is the system key made on the first start of an empty embedded store. */
export type MemoryStoreService = ComposedService & { readonly generatedKey: string | undefined };

/**
 * memory-store: the one writer of memories, provenance and keys (MemoryWriterService, internal
 * token only), their reads (MemoryStoreService) and key administration (AdminService). At start it
 * migrates its tables, pins the embedding space with its HNSW settings, and makes sure project
 * "default" exists (in embedded mode with no key at all, a system key is generated and shown once).
 */
export async function composeMemoryStore(proc: ServiceProcess, _peers: Peers): Promise<MemoryStoreService> {
  const config = memoryStoreConfig(proc.config);
  const db = await proc.database(memoryStoreMigrations);
  const { notifyCommitted } = await proc.events();
  const embedder = await proc.embedder();
  await pinEmbeddingSpace(db, embedder.space, config.hnsw, proc.logger);
  const { integrityKey } = proc.secrets;
  const repo = new KnexMemoryRepository(db, notifyCommitted, proc.metrics, {
    writeGroupMax: config.writeGroupMax,
  });
  const keyRepo = new KnexKeyRepository(db, notifyCommitted);
  const keys = new KeyService(keyRepo);
  const logger = proc.logger.child({ component: 'memory-store' });
  if (config.integrityRequireSigned) void warnAboutLegacySignatures(repo, logger);
  void warnAboutAgentlessKeys(keyRepo, logger);
  const generated = await keys.bootstrapFirstKey();
  const generatedKey =
    generated !== undefined && !config.bootstrapKeyConfigured && proc.embedded ? generated : undefined;
  const bind = await proc.binding('memory-store', [
    MemoryStoreServiceService,
    MemoryWriterServiceService,
    AdminServiceService,
  ]);
  const internal = { ...bind, authenticate: (await proc.authenticator()).authenticateInternal };
  const reader = await proc.verifiedReader();
  return {
    names: MEMORY_STORE_SERVICE_NAMES,
    generatedKey,
    notices: generatedKey ? [`generated system API key (shown once): ${generatedKey}`] : [],
    services: [
      {
        definition: MemoryStoreServiceService,
        implementation: bindService(
          MemoryStoreServiceService,
          memoryStoreHandlers({ repo, reader, integrityKey }),
          bind,
        ),
      },
      {
        definition: MemoryWriterServiceService,
        implementation: bindService(
          MemoryWriterServiceService,
          writerHandlers({ repo, embedder, integrityKey }),
          internal,
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
async function warnAboutLegacySignatures(repo: MemoryRepository, logger: Logger): Promise<void> {
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
async function warnAboutAgentlessKeys(repo: KnexKeyRepository, logger: Logger): Promise<void> {
  try {
    const message = agentlessKeysWarning(await repo.countAgentlessKeys());
    if (message === undefined) return;
    logger.warn(message);
    process.stderr.write(`engram: warning: ${message}\n`);
  } catch (err) {
    logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not count agentless keys');
  }
}
