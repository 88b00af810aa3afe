/**
 * Re-embedding: migrates a store to another embedding space (provider, model, dimensions) and to
 * other HNSW settings, run by `engram reembed` with the services stopped (PGlite allows one process;
 * on PostgreSQL memory-store refuses to start while the pin and its settings differ anyway).
 * 1. adds a column embedding_next vector(<new dimensions>) (kept across an interrupted run, which
 *    resumes where it stopped);
 * 2. embeds every memory's content in batches into it;
 * 3. in one transaction: embeds rows added meanwhile, drops the HNSW index, replaces the embedding
 *    column with the new one, rebuilds the HNSW index and re-pins embedding_space.
 * In the same space only the HNSW settings can change: a new m or ef_construction rebuilds the
 * index, a new ef_search is only recorded (every process reads it from the pin within seconds).
 * Signatures are untouched (they cover content, not vectors). A maintenance job of memory-store's
 * own tables, like integrity-backfill.ts.
 */
import type { Knex } from 'knex';
import {
  bindsBinaryVectors,
  createHnswIndexSql,
  HNSW_INDEX_NAME,
  hnswSettingsFor,
  type Engine,
  keepEmbeddingInline,
  pinnedHnswSettings,
  type HnswSettings,
} from '@engram/db';
import { vectorParam, type Embedder } from '@engram/embeddings';
import type { HnswChoice } from './embedding-space.ts';

export interface StoreSpace {
  provider: string;
  model: string;
  dimensions: number;
}

/** The store cannot be re-embedded as it is (not an Engram store, no space pinned yet). */
export class ReembedRefusedError extends Error {
  override readonly name = 'ReembedRefusedError';
}

export interface ReembedOptions {
  /** HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH as set (each possibly unset). */
  readonly hnsw: HnswChoice;
  /** Memories embedded per batch. */
  readonly batchSize: number;
  /** Called before the first batch with the total, then after each batch with the rows done. */
  readonly onProgress?: (p: { done: number; total: number }) => void;
  /**
   * The store's engine, whose defaults a new space starts from (hnswDefaults) and which says how vectors
   * are bound (binary on PostgreSQL); PostgreSQL when absent.
   */
  readonly engine?: Engine;
}

export interface ReembedReport {
  from: StoreSpace;
  to: StoreSpace;
  reembedded: number;
  changed: boolean;
  hnsw: { from: HnswSettings; to: HnswSettings; rebuilt: boolean };
}

const same = (a: StoreSpace, b: StoreSpace) =>
  a.provider === b.provider && a.model === b.model && Number(a.dimensions) === Number(b.dimensions);

async function embedRows(
  knex: Knex,
  embedder: Embedder,
  rows: { id: string; content: string }[],
  binary: boolean,
): Promise<void> {
  if (rows.length === 0) return;
  const vectors = await embedder.embed(rows.map((r) => r.content));
  const values = rows.map(() => '(?::uuid, ?::vector)').join(', ');
  await knex.raw(
    `update memories set embedding_next = v.e from (values ${values}) as v(id, e) where memories.id = v.id`,
    rows.flatMap((r, i) => [r.id, vectorParam(vectors[i]!, binary)]),
  );
}

/** Moves the store into the embedder's space and the chosen HNSW settings (see above). */
export async function reembedStore(
  knex: Knex,
  embedder: Embedder,
  { hnsw: choice, batchSize, onProgress, engine }: ReembedOptions,
): Promise<ReembedReport> {
  const target: StoreSpace = embedder.space;
  const binary = bindsBinaryVectors(engine ?? 'postgres');
  if (!(await knex.schema.hasTable('embedding_space')))
    throw new ReembedRefusedError('this database is not an Engram store');
  const pinned = (await knex('embedding_space').where({ id: 1 }).first()) as StoreSpace | undefined;
  if (!pinned)
    throw new ReembedRefusedError(
      'the store has no embedding space yet: start Engram once with the settings you want',
    );
  const changed = !same(pinned, target);
  const hnswFrom: HnswSettings = (await pinnedHnswSettings(knex)) ?? hnswSettingsFor(pinned.provider);
  // Another space starts from its provider's defaults; the same space keeps what was not set.
  const hnswTo: HnswSettings = changed
    ? hnswSettingsFor(target.provider, choice, engine)
    : {
        m: choice.m ?? hnswFrom.m,
        efConstruction: choice.efConstruction ?? hnswFrom.efConstruction,
        efSearch: choice.efSearch ?? hnswFrom.efSearch,
      };
  const hnswPin = {
    hnsw_m: hnswTo.m,
    hnsw_ef_construction: hnswTo.efConstruction,
    hnsw_ef_search: hnswTo.efSearch,
  };
  const rebuild = hnswTo.m !== hnswFrom.m || hnswTo.efConstruction !== hnswFrom.efConstruction;
  const report: ReembedReport = {
    from: pinned,
    to: target,
    reembedded: 0,
    changed,
    hnsw: { from: hnswFrom, to: hnswTo, rebuilt: changed || rebuild },
  };
  if (!changed) {
    if (rebuild) {
      await knex.transaction(async (trx) => {
        await trx.raw('lock table memories in share mode');
        await trx.raw(`drop index if exists ${HNSW_INDEX_NAME}`);
        await trx.raw(createHnswIndexSql(hnswTo));
        await trx('embedding_space').where({ id: 1 }).update(hnswPin);
      });
    } else if (hnswTo.efSearch !== hnswFrom.efSearch) {
      await knex('embedding_space').where({ id: 1 }).update(hnswPin);
    }
    return report;
  }
  const dims = Number(target.dimensions);
  if (await knex.schema.hasColumn('memories', 'embedding_next')) {
    const t = await knex.raw<{ rows: { typmod: number }[] }>(
      `select atttypmod as typmod from pg_attribute where attrelid = 'memories'::regclass and attname = 'embedding_next'`,
    );
    if (Number(t.rows[0]?.typmod) !== dims) await knex.raw('alter table memories drop column embedding_next');
  }
  await knex.raw(`alter table memories add column if not exists embedding_next vector(${dims})`);
  // New vectors are written on the heap page from the start (keepEmbeddingInline).
  await knex.raw('alter table memories alter column embedding_next set storage main');
  const total = Number(((await knex('memories').count('* as n').first()) as { n: string | number }).n);
  let done =
    total -
    Number(
      (
        (await knex('memories').whereNull('embedding_next').count('* as n').first()) as {
          n: string | number;
        }
      ).n,
    );
  let after = '00000000-0000-0000-0000-000000000000';
  onProgress?.({ done, total });
  for (;;) {
    const rows = (await knex('memories')
      .select('id', 'content')
      .whereNull('embedding_next')
      .where('id', '>', after)
      .orderBy('id')
      .limit(batchSize)) as { id: string; content: string }[];
    if (rows.length === 0) break;
    await embedRows(knex, embedder, rows, binary);
    after = rows[rows.length - 1]!.id;
    done += rows.length;
    report.reembedded += rows.length;
    onProgress?.({ done, total });
  }
  await knex.transaction(async (trx) => {
    await trx.raw('lock table memories in exclusive mode');
    const late = (await trx('memories').select('id', 'content').whereNull('embedding_next')) as {
      id: string;
      content: string;
    }[];
    for (let i = 0; i < late.length; i += batchSize)
      await embedRows(trx, embedder, late.slice(i, i + batchSize), binary);
    report.reembedded += late.length;
    await trx.raw(`drop index if exists ${HNSW_INDEX_NAME}`);
    await trx.raw('alter table memories drop column embedding');
    await trx.raw('alter table memories rename column embedding_next to embedding');
    await keepEmbeddingInline(trx);
    await trx.raw(createHnswIndexSql(hnswTo));
    await trx('embedding_space')
      .where({ id: 1 })
      .update({ provider: target.provider, model: target.model, dimensions: dims, ...hnswPin });
  });
  return report;
}
