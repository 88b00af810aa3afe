import type { Knex } from 'knex';
import type { Engine } from './database.ts';

/** The HNSW index on memories.embedding (cosine distance). */
export const HNSW_INDEX_NAME = 'memories_embedding_hnsw';

/**
 * Build parameters of the HNSW index of the hash embedder's space, and of every index built before
 * the settings were recorded with the embedding space (migration 20261122000000 moved stores to
 * them). On 100k hash-embedder memories recall@10 at ef_search 200 is 0.96 with these against 0.83
 * with pgvector's defaults (m 16, ef_construction 64), for about 1.5x the buffers per query and 3x
 * the build time (docs/decisions.md).
 */
export const HNSW_INDEX_PARAMS = Object.freeze({ m: 24, efConstruction: 200 });

/** The parameters pgvector uses when an index names none. */
export const PGVECTOR_DEFAULTS = Object.freeze({ m: 16, efConstruction: 64 });

/**
 * The HNSW settings of a store: the index build (m, ef_construction) and the candidate list of a
 * search (ef_search). They belong to the embedding space, because what a graph index needs depends
 * on the geometry of the vectors: they are recorded with the pin (embedding_space), chosen when the
 * store is initialised and changed by `engram reembed`.
 */
export interface HnswSettings {
  readonly m: number;
  readonly efConstruction: number;
  readonly efSearch: number;
}

/**
 * The defaults per embedding provider and database engine (docs/decisions.md; docs/benchmarks.md,
 * HNSW recall):
 * - hash on PostgreSQL: lexical vectors of short templated texts: m 24 / ef_construction 200 /
 *   ef_search 200 keep recall@10 above 0.95 at 100,000 memories.
 * - hash on PGlite (the embedded store): m 16 / ef_construction 128 / ef_search 200. Each HNSW insert
 *   runs as WASM on the one thread of the embedded process, so the build decides its writes per
 *   second (16 clients, 5,000 memories: 58 writes/s against 42 with the PostgreSQL build); recall@10
 *   at 10,000 hash memories is 0.979 against 0.989. A store that outgrows that moves to larger
 *   settings with `engram reembed` (HNSW_M, HNSW_EF_CONSTRUCTION), or to PostgreSQL.
 * - openai and local (sentence embeddings), measured on the stand-in server's geometry at 384 and
 *   1536 dimensions, 100,000 memories: pgvector's build (m 16, ef_construction 64), a third of the
 *   insert work of the hash build, reaches 0.95-0.96 at ef_search 200 (0.86-0.91 at pgvector's 40).
 */
export function hnswDefaults(provider: string, engine: Engine = 'postgres'): HnswSettings {
  if (provider === 'hash')
    return engine === 'pglite'
      ? { ...PGLITE_HASH_PARAMS, efSearch: 200 }
      : { ...HNSW_INDEX_PARAMS, efSearch: 200 };
  return { ...PGVECTOR_DEFAULTS, efSearch: 200 };
}

/** The hash space's build on the embedded engine (see hnswDefaults). */
export const PGLITE_HASH_PARAMS = Object.freeze({ m: 16, efConstruction: 128 });

/**
 * The settings a store is initialised with: each one the operator set, else the default of the
 * provider on the store's engine.
 */
export function hnswSettingsFor(
  provider: string,
  chosen: { m?: number | undefined; efConstruction?: number | undefined; efSearch?: number | undefined } = {},
  engine: Engine = 'postgres',
): HnswSettings {
  const d = hnswDefaults(provider, engine);
  return {
    m: chosen.m ?? d.m,
    efConstruction: chosen.efConstruction ?? d.efConstruction,
    efSearch: chosen.efSearch ?? d.efSearch,
  };
}

/**
 * The HNSW settings pinned with the store's embedding space, or undefined when the store has no
 * pin yet (or predates the columns: memory-store's migration adds them before anyone reads them).
 */
export async function pinnedHnswSettings(knex: Knex): Promise<HnswSettings | undefined> {
  const has = await knex.raw<{ rows: { n: string | number }[] }>(
    `select count(*) as n from information_schema.columns
      where table_schema = current_schema() and table_name = 'embedding_space' and column_name = 'hnsw_ef_search'`,
  );
  if (Number(has.rows[0]?.n) === 0) return undefined;
  const row = (await knex('embedding_space')
    .select('hnsw_m', 'hnsw_ef_construction', 'hnsw_ef_search')
    .where({ id: 1 })
    .first()) as { hnsw_m: number; hnsw_ef_construction: number; hnsw_ef_search: number } | undefined;
  if (!row || row.hnsw_ef_search === null) return undefined;
  return {
    m: Number(row.hnsw_m),
    efConstruction: Number(row.hnsw_ef_construction),
    efSearch: Number(row.hnsw_ef_search),
  };
}

/** `create index memories_embedding_hnsw ...` with the given build parameters. */
export function createHnswIndexSql(params: { m: number; efConstruction: number }): string {
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
