/**
 * engram reembed: migrates a store to another embedding space (provider, model, dimensions), the
 * space the EMBEDDING_* settings name, and to other HNSW settings (HNSW_M, HNSW_EF_CONSTRUCTION,
 * HNSW_EF_SEARCH: those set, else kept when the space stays, else the new provider's defaults). Run
 * it with the services stopped. The migration itself is memory-store's (reembedStore of
 * services/memory-store/src/storage/reembed.ts); this command reads the settings, loads the
 * embedder, shows the progress bar and prints the report.
 *   engram reembed [--batch-size N] [--json]
 */
import { join } from 'node:path';
import { loadEngramConfig } from '@engram/config';
import { createEmbedder } from '@engram/embeddings';
import { createLogger } from '@engram/logger';
import {
  memoryStoreConfig,
  ReembedRefusedError,
  reembedStore,
  type ReembedReport,
  type StoreSpace,
} from '@engram/memory-store';
import type { HnswSettings } from '@engram/db';
import { embeddingSettings } from '@engram/platform';
import { HELP, intOption, JSON_OPTION, parseCommand } from '../args.ts';
import { fail } from '../exit.ts';
import { startProgress, type Progress } from '../progress.ts';
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
  const target: StoreSpace = embedder.space;
  const db = await openStore(config);
  let bar: Progress | undefined;
  try {
    let report: ReembedReport;
    try {
      report = await reembedStore(db.knex, embedder, {
        hnsw: memoryStoreConfig(config).hnsw,
        batchSize,
        engine: db.engine,
        // The bar starts at the first report (it brings the total), then follows each batch.
        onProgress: ({ done, total }) => {
          if (bar) bar.update(done);
          else bar = startProgress({ label: 'reembed', total });
        },
      });
    } catch (e) {
      if (e instanceof ReembedRefusedError) fail(e.message);
      throw e;
    }
    bar?.stop();
    const { from: hnswFrom, to: hnswTo } = report.hnsw;
    const rebuild = hnswTo.m !== hnswFrom.m || hnswTo.efConstruction !== hnswFrom.efConstruction;
    const describe = (s: StoreSpace) => `${s.provider}/${s.model}/${s.dimensions}-d`;
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
    bar?.stop();
    await db.close();
  }
}
