/**
 * engram reembed: migrates a store to another embedding space (provider, model, dimensions), the
 * space the EMBEDDING_* settings name, and to other HNSW settings (HNSW_M, HNSW_EF_CONSTRUCTION,
 * HNSW_EF_SEARCH: those set, else kept when the space stays, else the new provider's defaults). Run it with the services stopped (PGlite allows one process;
 * on PostgreSQL memory-store refuses to start while the pin and its settings differ anyway).
 *   engram reembed [--batch-size N] [--json]
 * 1. adds a column embedding_next vector(<new dimensions>) (kept across an interrupted run, which
 *    resumes where it stopped);
 * 2. embeds every memory's content in batches into it, with a progress bar;
 * 3. in one transaction: embeds rows added meanwhile, drops the HNSW index, replaces the embedding
 *    column with the new one, rebuilds the HNSW index and re-pins embedding_space.
 * In the same space only the HNSW settings can change: a new m or ef_construction rebuilds the
 * index, a new ef_search is only recorded (every process reads it from the pin within seconds).
 * Signatures are untouched (they cover content, not vectors).
 */
import { join } from 'node:path';
import type { Knex } from 'knex';
import { loadEngramConfig } from '@engram/config';
import {
  createHnswIndexSql,
  HNSW_INDEX_NAME,
  hnswSettingsFor,
  keepEmbeddingInline,
  pinnedHnswSettings,
  type HnswSettings,
} from '@engram/db';
import { createEmbedder, vectorLiteral, type Embedder } from '@engram/embeddings';
import { createLogger } from '@engram/logger';
import { embeddingSettings, hnswChoice } from '@engram/platform';
import { HELP, intOption, JSON_OPTION, parseCommand } from '../args.ts';
import { fail } from '../exit.ts';
import { startProgress } from '../progress.ts';
import { openStore } from '../store.ts';

export const USAGE = `usage: engram reembed [--batch-size N] [--json]
  Re-embeds every memory into the space of the EMBEDDING_* settings, re-types the embedding column,
  rebuilds the HNSW index and re-pins the store's space. HNSW_M, HNSW_EF_CONSTRUCTION and
  HNSW_EF_SEARCH, when set, change the index settings pinned with the space (in the same space: only
  those, rebuilding the index when m or ef_construction change). Resumable: an interrupted run continues
  where it stopped. Shows a progress bar on a terminal.
options:
  --batch-size N   memories embedded per batch (1 to 10000, default 64)
  --json           the report as JSON
database: DATABASE_URL, else the embedded store in ENGRAM_DATA_DIR (services stopped).`;

interface Space {
  provider: string;
  model: string;
  dimensions: number;
}

const same = (a: Space, b: Space) =>
  a.provider === b.provider && a.model === b.model && Number(a.dimensions) === Number(b.dimensions);

async function embedRows(
  knex: Knex,
  embedder: Embedder,
  rows: { id: string; content: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  const vectors = await embedder.embed(rows.map((r) => r.content));
  const values = rows.map(() => '(?::uuid, ?::vector)').join(', ');
  await knex.raw(
    `update memories set embedding_next = v.e from (values ${values}) as v(id, e) where memories.id = v.id`,
    rows.flatMap((r, i) => [r.id, vectorLiteral(vectors[i]!)]),
  );
}

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    options: { ...JSON_OPTION, ...HELP, 'batch-size': { type: 'string' } },
  });
  if (!parsed) return;
  const { values } = parsed;
  const batchSize = intOption(values['batch-size'], 'batch-size', 64, 1, 10_000, USAGE);
  const config = loadEngramConfig(process.env);
  const embedder = await createEmbedder(
    { ...embeddingSettings(config), cacheDir: join(config.dataDir, 'models') },
    createLogger({ service: 'engram-cli', level: 'warn' }),
  );
  if (embedder.space.provider !== config.embeddingProvider)
    fail(
      `the ${config.embeddingProvider} embedder could not be loaded (see the warning above); nothing changed`,
    );
  const target: Space = embedder.space;
  const db = await openStore(config);
  try {
    const knex = db.knex;
    if (!(await knex.schema.hasTable('embedding_space'))) fail('this database is not an Engram store');
    const pinned = (await knex('embedding_space').where({ id: 1 }).first()) as Space | undefined;
    if (!pinned) fail('the store has no embedding space yet: start Engram once with the settings you want');
    const changed = !same(pinned, target);
    const choice = hnswChoice(config);
    const hnswFrom: HnswSettings = (await pinnedHnswSettings(knex)) ?? hnswSettingsFor(pinned.provider);
    // Another space starts from its provider's defaults; the same space keeps what was not set.
    const hnswTo: HnswSettings = changed
      ? hnswSettingsFor(target.provider, choice)
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
    const report = {
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
    }
    if (report.changed) {
      const dims = Number(target.dimensions);
      if (await knex.schema.hasColumn('memories', 'embedding_next')) {
        const t = await knex.raw<{ rows: { typmod: number }[] }>(
          `select atttypmod as typmod from pg_attribute where attrelid = 'memories'::regclass and attname = 'embedding_next'`,
        );
        if (Number(t.rows[0]?.typmod) !== dims)
          await knex.raw('alter table memories drop column embedding_next');
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
      const bar = startProgress({ label: 'reembed', total });
      try {
        for (;;) {
          const rows = (await knex('memories')
            .select('id', 'content')
            .whereNull('embedding_next')
            .where('id', '>', after)
            .orderBy('id')
            .limit(batchSize)) as { id: string; content: string }[];
          if (rows.length === 0) break;
          await embedRows(knex, embedder, rows);
          after = rows[rows.length - 1]!.id;
          done += rows.length;
          report.reembedded += rows.length;
          bar.update(done);
        }
      } finally {
        bar.stop();
      }
      await knex.transaction(async (trx) => {
        await trx.raw('lock table memories in exclusive mode');
        const late = (await trx('memories').select('id', 'content').whereNull('embedding_next')) as {
          id: string;
          content: string;
        }[];
        for (let i = 0; i < late.length; i += batchSize)
          await embedRows(trx, embedder, late.slice(i, i + batchSize));
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
    }
    const describe = (s: Space) => `${s.provider}/${s.model}/${s.dimensions}-d`;
    const hnsw = (h: HnswSettings) =>
      `m ${h.m}, ef_construction ${h.efConstruction}, ef_search ${h.efSearch}`;
    const hnswChanged = hnsw(hnswFrom) !== hnsw(hnswTo);
    if (values.json) process.stdout.write(JSON.stringify(report) + '\n');
    else if (!report.changed && hnswChanged)
      process.stdout.write(
        `reembed: the store stays in ${describe(target)}; HNSW settings moved from ${hnsw(hnswFrom)} to ${hnsw(hnswTo)}${rebuild ? '; HNSW index rebuilt' : ''}\n`,
      );
    else if (!report.changed)
      process.stdout.write(`reembed: the store is already in ${describe(target)}; nothing to do\n`);
    else
      process.stdout.write(
        `reembed: ${report.reembedded} memories moved from ${describe(report.from)} to ${describe(target)}; HNSW index rebuilt\n`,
      );
  } finally {
    await db.close();
  }
}
