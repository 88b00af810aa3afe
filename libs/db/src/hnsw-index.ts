import type { Knex } from 'knex';

/** The HNSW index on memories.embedding (cosine distance). */
export const HNSW_INDEX_NAME = 'memories_embedding_hnsw';

/**
 * Build parameters of the HNSW index, shared by every place that creates it (memory-store's pin and
 * migration, `engram reembed`, the retrieval bench) so they cannot drift. On 100k hash-embedder
 * memories recall@10 at ef_search 200 is 0.96 with these against 0.83 with pgvector's defaults
 * (m 16, ef_construction 64), for about 1.5x the buffers per query and 3x the build time
 * (docs/decisions.md).
 */
export const HNSW_INDEX_PARAMS = Object.freeze({ m: 24, efConstruction: 200 });

/** The parameters pgvector uses when an index names none. */
export const PGVECTOR_DEFAULTS = Object.freeze({ m: 16, efConstruction: 64 });

/** `create index memories_embedding_hnsw ...` with the shared build parameters. */
export function createHnswIndexSql(
  params: { m: number; efConstruction: number } = HNSW_INDEX_PARAMS,
): string {
  return (
    `create index ${HNSW_INDEX_NAME} on memories using hnsw (embedding vector_cosine_ops) ` +
    `with (m = ${Number(params.m)}, ef_construction = ${Number(params.efConstruction)})`
  );
}

/**
 * The build parameters of the existing HNSW index (pgvector's defaults for options it was created
 * without), or undefined when there is no such index.
 */
export async function hnswIndexParams(
  knex: Knex,
): Promise<{ m: number; efConstruction: number } | undefined> {
  const res = await knex.raw<{ rows: { reloptions: string[] | string | null }[] }>(
    `select c.reloptions from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relname = ? and c.relkind = 'i' and n.nspname = current_schema()`,
    [HNSW_INDEX_NAME],
  );
  const row = res.rows[0];
  if (!row) return undefined;
  const options = new Map<string, string>();
  const list = Array.isArray(row.reloptions)
    ? row.reloptions
    : // An array the driver left as text: {m=24,ef_construction=128}
      (row.reloptions ?? '').replace(/^\{|\}$/g, '').split(',');
  for (const opt of list) {
    const eq = opt.indexOf('=');
    if (eq > 0) options.set(opt.slice(0, eq).trim(), opt.slice(eq + 1).trim());
  }
  return {
    m: Number(options.get('m') ?? PGVECTOR_DEFAULTS.m),
    efConstruction: Number(options.get('ef_construction') ?? PGVECTOR_DEFAULTS.efConstruction),
  };
}
