import type { Knex } from 'knex';
import {
  createHnswIndexSql,
  HNSW_INDEX_NAME,
  HNSW_INDEX_PARAMS,
  hnswIndexParams,
  PGVECTOR_DEFAULTS,
  type Migration,
} from '@engram/db';

async function rebuildUnless(knex: Knex, want: { m: number; efConstruction: number }): Promise<void> {
  const have = await hnswIndexParams(knex);
  // No index yet: the store pins its embedding space (and builds the index) after migrating.
  if (!have || (have.m === want.m && have.efConstruction === want.efConstruction)) return;
  await knex.raw(`drop index ${HNSW_INDEX_NAME}`);
  await knex.raw(createHnswIndexSql(want));
}

/**
 * Rebuilds the HNSW index of an existing store with the shared build parameters (HNSW_INDEX_PARAMS)
 * when it was built with others: a one-time rebuild at the first start after the upgrade (70-95 s
 * per 100k 384-d memories on two cores when the graph fits in maintenance_work_mem, slower when it
 * does not), in the migration's transaction. Stores without the index yet are left alone.
 */
export const hnswIndexParamsMigration: Migration = {
  name: '20261122000000-hnsw-index-params',
  up: (knex) => rebuildUnless(knex, HNSW_INDEX_PARAMS),
  // Every index built before this migration had pgvector's defaults.
  down: (knex) => rebuildUnless(knex, PGVECTOR_DEFAULTS),
};
