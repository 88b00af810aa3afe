import {
  createHnswIndexSql,
  hnswSettingsFor,
  keepEmbeddingInline,
  pinnedHnswSettings,
  type Database,
  type HnswSettings,
} from '@engram/db';
import type { EmbeddingSpace } from '@engram/embeddings';
import type { Logger } from '@engram/logger';

export class EmbeddingSpaceMismatchError extends Error {
  override readonly name = 'EmbeddingSpaceMismatchError';
}

/** HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH: what the operator chose, each possibly unset. */
export interface HnswChoice {
  readonly m?: number | undefined;
  readonly efConstruction?: number | undefined;
  readonly efSearch?: number | undefined;
}

/**
 * Pins the store's embedding space at first start: records it with its HNSW settings (the
 * operator's choice, else the defaults of the provider on the store's engine), types the embedding column as
 * vector(<dimensions>) and builds the HNSW index. Later starts must use the same space (a store is
 * migrated between spaces, or to other HNSW settings, with `engram reembed`), otherwise the process
 * refuses to start; HNSW settings that differ from the pinned ones are reported and left alone.
 * Every session of `db` then searches at the pinned ef_search. Returns the pinned settings.
 */
export async function pinEmbeddingSpace(
  db: Database,
  space: EmbeddingSpace,
  choice: HnswChoice = {},
  logger?: Logger,
): Promise<HnswSettings> {
  const settings = await db.knex.transaction(async (trx) => {
    await trx.raw('lock table embedding_space in exclusive mode');
    const row = (await trx('embedding_space').where({ id: 1 }).first()) as
      { provider: string; model: string; dimensions: number } | undefined;
    if (row) {
      if (
        row.provider !== space.provider ||
        row.model !== space.model ||
        row.dimensions !== space.dimensions
      ) {
        throw new EmbeddingSpaceMismatchError(
          `this store holds ${row.provider}/${row.model}/${row.dimensions}-d embeddings but the configured embedder is ` +
            `${space.provider}/${space.model}/${space.dimensions}-d; set EMBEDDING_PROVIDER/EMBEDDING_MODEL to match or migrate with \`engram reembed\``,
        );
      }
      const pinned = (await pinnedHnswSettings(trx)) ?? hnswSettingsFor(space.provider);
      const differs = (['m', 'efConstruction', 'efSearch'] as const).filter(
        (k) => choice[k] !== undefined && choice[k] !== pinned[k],
      );
      if (differs.length > 0)
        logger?.warn(
          { pinned, configured: choice },
          'the HNSW settings differ from the ones pinned with the store; the store keeps its own (`engram reembed` changes them)',
        );
      return pinned;
    }
    const chosen = hnswSettingsFor(space.provider, choice, db.engine);
    await trx('embedding_space').insert({
      id: 1,
      provider: space.provider,
      model: space.model,
      dimensions: space.dimensions,
      hnsw_m: chosen.m,
      hnsw_ef_construction: chosen.efConstruction,
      hnsw_ef_search: chosen.efSearch,
    });
    await trx.raw(`alter table memories alter column embedding type vector(${Number(space.dimensions)})`);
    await keepEmbeddingInline(trx);
    await trx.raw(createHnswIndexSql(chosen));
    return chosen;
  });
  await db.setHnswEfSearch(settings.efSearch);
  return settings;
}
