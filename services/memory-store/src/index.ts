export { memoryStoreMigrations } from '../migrations/index.ts';
export { bootstrapKeys } from './bootstrap.ts';
export { MEMORY_STORE_SERVICE_NAMES, memoryStoreServices } from './server.ts';
export { pinEmbeddingSpace } from './storage/embedding-space.ts';
export { backfillIntegrity } from './storage/integrity-backfill.ts';
export type { BackfillOptions, BackfillProgress, BackfillReport } from './storage/integrity-backfill.ts';
export { BACKFILL_COMMAND, legacySignatureWarning } from './domain/legacy-signature-warning.ts';
export { agentlessKeysWarning } from './domain/keys.ts';
export { provenanceCanonical } from './domain/persist-memories.ts';
