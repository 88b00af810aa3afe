import { createHnswIndexSql, keepEmbeddingInline, type Database } from '@engram/db';
import type { EmbeddingSpace } from '@engram/embeddings';

export class EmbeddingSpaceMismatchError extends Error {
  override readonly name = 'EmbeddingSpaceMismatchError';
}

/**
 * Pins the store's embedding space at first start: records it, types the embedding column as
 * vector(<dimensions>) and builds the HNSW index. Later starts must use the same space (a store is
 * migrated between spaces with `engram reembed`), otherwise the process refuses to start.
 */
export async function pinEmbeddingSpace(db: Database, space: EmbeddingSpace): Promise<void> {
  await db.knex.transaction(async (trx) => {
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
      return;
    }
    await trx('embedding_space').insert({
      id: 1,
      provider: space.provider,
      model: space.model,
      dimensions: space.dimensions,
    });
    await trx.raw(`alter table memories alter column embedding type vector(${Number(space.dimensions)})`);
    await keepEmbeddingInline(trx);
    await trx.raw(createHnswIndexSql());
  });
}
