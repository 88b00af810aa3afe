export {
  bindsBinaryVectors,
  DataDirectoryError,
  DEFAULT_HNSW_EF_SEARCH,
  openDatabase,
  sessionSettingsSql,
  withHnswEfSearch,
} from './database.ts';
export type { Database, DatabaseOptions, Engine } from './database.ts';
export { migrateLatest, migrateRollbackAll } from './migrations.ts';
export { knexLog, knexLogLine } from './knex-log.ts';
export type { KnexLogSink } from './knex-log.ts';
export { poolUsage } from './pool-usage.ts';
export type { PoolUsage } from './pool-usage.ts';
export type { Migration, MigrationSet } from './migrations.ts';
export { keepEmbeddingInline, MEMORIES_TOAST_TUPLE_TARGET } from './embedding-storage.ts';
export {
  createHnswIndexSql,
  HNSW_INDEX_NAME,
  HNSW_INDEX_PARAMS,
  PGLITE_HASH_PARAMS,
  hnswDefaults,
  hnswIndexParams,
  hnswSettingsFor,
  pinnedHnswSettings,
  PGVECTOR_DEFAULTS,
} from './hnsw-index.ts';
export type { HnswSettings } from './hnsw-index.ts';
