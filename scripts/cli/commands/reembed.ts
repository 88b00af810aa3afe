/**
 * engram reembed: migrates a store to another embedding space (provider, model, dimensions), the
 * space the EMBEDDING_* settings name. Run it with the services stopped (PGlite allows one process;
 * on PostgreSQL memory-store refuses to start while the pin and its settings differ anyway).
 *   engram reembed [--batch-size N] [--json]
 * 1. adds a column embedding_next vector(<new dimensions>) (kept across an interrupted run, which
 *    resumes where it stopped);
 * 2. embeds every memory's content in batches into it, with a progress bar;
 * 3. in one transaction: embeds rows added meanwhile, drops the HNSW index, replaces the embedding
 *    column with the new one, rebuilds the HNSW index and re-pins embedding_space.
 * Signatures are untouched (they cover content, not vectors).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { loadEngramConfig } from '@engram/config';
import { createHnswIndexSql, HNSW_INDEX_NAME, keepEmbeddingInline, openDatabase } from '@engram/db';
import { createEmbedder, vectorLiteral, type Embedder } from '@engram/embeddings';
import { createLogger } from '@engram/logger';
import { embeddingSettings } from '@engram/platform';
import { fail } from '../fail.ts';

export const USAGE = `usage:
  engram reembed [--batch-size N (default 64)] [--json]
    re-embeds every memory into the space of the EMBEDDING_* settings, re-types the embedding column,
    rebuilds the HNSW index and re-pins the store's space. Database: DATABASE_URL or ENGRAM_DATA_DIR
    (services stopped). Resumable: an interrupted run continues where it stopped.`;

interface Space {
  provider: string;
  model: string;
  dimensions: number;
}

const same = (a: Space, b: Space) =>
  a.provider === b.provider && a.model === b.model && Number(a.dimensions) === Number(b.dimensions);

function progressBar(total: number): { update: (done: number) => void; done: () => void } {
  const tty = process.stderr.isTTY === true;
  let lastDecile = -1;
  return {
    update(done) {
      const pct = total === 0 ? 100 : Math.min(100, Math.floor((done / total) * 100));
      if (tty) {
        const filled = Math.round((pct / 100) * 30);
        process.stderr.write(
          `\r[${'#'.repeat(filled)}${'.'.repeat(30 - filled)}] ${String(pct).padStart(3)}% ${done}/${total}`,
        );
      } else if (Math.floor(pct / 10) !== lastDecile) {
        lastDecile = Math.floor(pct / 10);
        process.stderr.write(`reembed: ${pct}% ${done}/${total}\n`);
      }
    },
    done() {
      if (tty) process.stderr.write('\n');
    },
  };
}

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

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv.slice(1),
    options: {
      'batch-size': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const batchSize = values['batch-size'] === undefined ? 64 : Number(values['batch-size']);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
    fail('--batch-size must be an integer between 1 and 10000');
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
  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: join(config.dataDir, 'pglite'),
    poolMax: 2,
  });
  try {
    const knex = db.knex;
    if (!(await knex.schema.hasTable('embedding_space'))) fail('this database is not an Engram store');
    const pinned = (await knex('embedding_space').where({ id: 1 }).first()) as Space | undefined;
    if (!pinned) fail('the store has no embedding space yet: start Engram once with the settings you want');
    const report = { from: pinned, to: target, reembedded: 0, changed: !same(pinned, target) };
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
      const bar = progressBar(total);
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
      bar.done();
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
        await trx.raw(createHnswIndexSql());
        await trx('embedding_space')
          .where({ id: 1 })
          .update({ provider: target.provider, model: target.model, dimensions: dims });
      });
    }
    const describe = (s: Space) => `${s.provider}/${s.model}/${s.dimensions}-d`;
    if (values.json) process.stdout.write(JSON.stringify(report) + '\n');
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
