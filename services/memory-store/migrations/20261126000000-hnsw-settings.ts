import { hnswDefaults, hnswIndexParams, type Migration } from '@engram/db';

/**
 * The HNSW settings belong to the embedding space: embedding_space records the index build (m,
 * ef_construction) and the search candidate list (ef_search) next to provider, model and dimensions.
 * A store pinned before this migration gets the parameters its index was built with and ef_search
 * 200, the suite-wide default it ran at until now (an operator who had set HNSW_EF_SEARCH moves it
 * with `engram reembed`).
 */
export const hnswSettings: Migration = {
  name: '20261126000000-hnsw-settings',
  async up(knex) {
    await knex.schema.alterTable('embedding_space', (t) => {
      t.integer('hnsw_m');
      t.integer('hnsw_ef_construction');
      t.integer('hnsw_ef_search');
    });
    const row = (await knex('embedding_space').where({ id: 1 }).first()) as { provider: string } | undefined;
    if (!row) return;
    const built = (await hnswIndexParams(knex)) ?? hnswDefaults(row.provider);
    await knex('embedding_space')
      .where({ id: 1 })
      .update({ hnsw_m: built.m, hnsw_ef_construction: built.efConstruction, hnsw_ef_search: 200 });
  },
  async down(knex) {
    await knex.schema.alterTable('embedding_space', (t) => {
      t.dropColumn('hnsw_m');
      t.dropColumn('hnsw_ef_construction');
      t.dropColumn('hnsw_ef_search');
    });
  },
};
