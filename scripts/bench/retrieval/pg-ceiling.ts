import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import { HashEmbedder, vectorLiteral } from '@engram/embeddings';
import { nearestQuery } from '@engram/memories';
import { BENCH_NAMESPACE } from './bulk-load.ts';
import { queryText } from './corpus.ts';

const run = promisify(execFile);
const QUERY_VECTORS = 1000;

/** pgbench from PATH or from PostgreSQL's own bin directory (Debian keeps it there). */
function findPgbench(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':'))
    if (existsSync(join(dir, 'pgbench'))) return join(dir, 'pgbench');
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  for (const v of readdirSync(root).sort().reverse()) {
    const p = join(root, v, 'bin', 'pgbench');
    if (existsSync(p)) return p;
  }
  return undefined;
}

export interface Ceiling {
  readonly clients: number;
  readonly perSecond: number;
  readonly meanMs: number;
}

/**
 * The vector query of POST /memories/query, built by the service's own nearestQuery
 * (@engram/memories) for an agent-bound internal key and top_k 10 (20 rows), with the query vector
 * read from bench_query_vectors by the pgbench variable :i.
 */
function querySql(knex: Knex): string {
  const vector = knex.raw('(select v from bench_query_vectors where i = :i)');
  const q = {
    reader: { projectId: 'default', agentId: 'agent-3', seesAll: false },
    namespace: BENCH_NAMESPACE,
    vector: [],
    memoryTypes: [],
    scopes: [],
    authors: [],
  };
  return nearestQuery(knex, q, vector, 20, 0).toQuery();
}

/**
 * What PostgreSQL alone can do with the service's vector query: pgbench (C, light on the shared
 * cores) runs it with no Engram process in the path, at the service's session settings (iterative
 * scan, ef_search, jit off) and over the same protocol as node-pg (extended, parsed and planned per
 * query). The gap between this and the gateway numbers is the services' share;
 * this number bounds what any change above the database can reach on the machine.
 * Returns undefined when pgbench is not installed.
 */
export async function postgresCeiling(
  knex: Knex,
  databaseUrl: string,
  size: number,
  efSearch: number,
  clients: readonly number[],
): Promise<Ceiling[] | undefined> {
  const pgbench = findPgbench();
  if (!pgbench) return undefined;
  const embedder = new HashEmbedder({ dimensions: 384 });
  const vectors = await embedder.embed(
    Array.from({ length: QUERY_VECTORS }, (_, i) => queryText((i * 7919) % size, 50_000 + i)),
  );
  await knex.raw('drop table if exists bench_query_vectors');
  await knex.raw('create table bench_query_vectors (i int primary key, v vector(384))');
  await knex('bench_query_vectors').insert(vectors.map((v, i) => ({ i: i + 1, v: vectorLiteral(v) })));
  const dir = mkdtempSync(join(tmpdir(), 'engram-pgbench-'));
  try {
    const script = join(dir, 'query.sql');
    writeFileSync(script, `\\set i random(1, ${QUERY_VECTORS})\n${querySql(knex)};\n`);
    const out: Ceiling[] = [];
    for (const c of clients) {
      const { stdout } = await run(
        pgbench,
        [
          '-n',
          '-M',
          'extended',
          '-f',
          script,
          '-c',
          String(c),
          '-j',
          String(Math.min(c, 2)),
          '-T',
          '10',
          databaseUrl,
        ],
        {
          env: {
            ...process.env,
            PGOPTIONS: `-c hnsw.iterative_scan=relaxed_order -c hnsw.ef_search=${efSearch} -c jit=off`,
          },
        },
      );
      const tps = /tps = ([\d.]+)/.exec(stdout)?.[1];
      const mean = /latency average = ([\d.]+) ms/.exec(stdout)?.[1];
      if (!tps || !mean) throw new Error(`unexpected pgbench output:\n${stdout}`);
      out.push({ clients: c, perSecond: Number(tps), meanMs: Number(mean) });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await knex.raw('drop table if exists bench_query_vectors');
  }
}
