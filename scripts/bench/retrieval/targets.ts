import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbedded } from '@engram/all-in-one';
import { loadEngramConfig } from '@engram/config';
import { createLogger } from '@engram/logger';
import {
  ApiClient,
  compiledEntry,
  createTestDatabase,
  freePort,
  ManagedProcess,
  startDistributed,
  type DistributedEngram,
  type TestDatabase,
} from '@engram/testing';
import knexFactory from 'knex';
import type { Knex } from 'knex';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** No rate limit gets in the way of a load test. */
export const BENCH_ENV = {
  RATE_LIMIT_PROJECT_PER_MINUTE: '100000000',
  RATE_LIMIT_AGENT_PER_MINUTE: '100000000',
  EMBEDDING_PROVIDER: 'hash',
  LOG_LEVEL: 'warn',
};

async function waitReady(baseUrl: string, proc: ManagedProcess): Promise<void> {
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (!proc.running) throw new Error(`${proc.name} exited during startup\n${proc.tail()}`);
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${proc.name} not ready\n${proc.tail()}`);
}

/**
 * The embedded suite (all services, gateway and PGlite in one process, `make start`) in a child
 * process on a data directory that outlives it, so rows can be bulk-loaded in between runs.
 */
export class EmbeddedTarget {
  readonly dataDir = mkdtempSync(join(tmpdir(), 'engram-bench-'));
  readonly adminKey = 'egk_bench_' + randomBytes(24).toString('base64url');
  readonly integrityKey = randomBytes(32).toString('base64url');
  private readonly internalToken = randomBytes(24).toString('base64url');
  private proc: ManagedProcess | undefined;

  /** `extra`: settings on top of BENCH_ENV (e.g. one option on, then off, in one bench). */
  constructor(private readonly extra: Record<string, string> = {}) {}

  /** The running child's pid (for a CpuMeter). */
  get pid(): number | undefined {
    return this.proc?.child.pid;
  }

  private env(httpPort: string, grpcPort: string): Record<string, string> {
    return {
      ...BENCH_ENV,
      ...this.extra,
      ENGRAM_DATA_DIR: this.dataDir,
      ENGRAM_HTTP_PORT: httpPort,
      ENGRAM_GRPC_PORT: grpcPort,
      SERVICE_API_KEY: this.adminKey,
      SERVICE_INTEGRITY_KEY: this.integrityKey,
      ENGRAM_INTERNAL_TOKEN: this.internalToken,
    };
  }

  /** Starts the child process and returns a system-key client of its gateway. */
  async start(): Promise<ApiClient> {
    const http = await freePort();
    const grpc = await freePort();
    this.proc = ManagedProcess.spawn(
      'engram-embedded',
      process.execPath,
      compiledEntry('services/all-in-one', 'main'),
      { PATH: process.env.PATH, HOME: process.env.HOME, ...this.env(String(http), String(grpc)) },
      ROOT,
    );
    const baseUrl = `http://127.0.0.1:${http}`;
    await waitReady(baseUrl, this.proc);
    return new ApiClient(baseUrl, this.adminKey);
  }

  async stop(): Promise<void> {
    await this.proc?.stop(60_000);
    this.proc = undefined;
  }

  /** Opens the data directory in this process (the child must be stopped) and runs `fn` on it. */
  async withDatabase(fn: (knex: Knex) => Promise<void>): Promise<void> {
    const config = loadEngramConfig(this.env('0', '0'));
    const engram = await startEmbedded(config, createLogger({ service: 'bench', level: 'warn' }));
    try {
      await fn(engram.db.knex);
    } finally {
      await engram.stop();
    }
  }

  remove(): void {
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/**
 * The six processes (startDistributed) on a new database of the machine's PostgreSQL, with a knex
 * of that database for bulk loads, and the server's version and memory line for the report.
 */
export interface PostgresSuite {
  readonly db: TestDatabase;
  readonly suite: DistributedEngram;
  readonly knex: Knex;
  /** "PostgreSQL 15.x (shared_buffers 128MB), pgvector 0.8.0." */
  readonly server: string;
  stop(): Promise<void>;
}

export async function startPostgresSuite(
  name: string,
  env: Record<string, string> = BENCH_ENV,
): Promise<PostgresSuite> {
  const db = await createTestDatabase(`engram_${name}`);
  const suite = await startDistributed({
    databaseUrl: db.url,
    natsUrl: process.env.ENGRAM_TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
    natsStream: `ENGRAM_${name.toUpperCase()}_${Date.now()}`,
    env,
  });
  const knex = knexFactory({ client: 'pg', connection: db.url, pool: { min: 0, max: 2 } });
  const r = await knex.raw<{ rows: { v: string; sb: string; pgv: string }[] }>(
    `select current_setting('server_version') as v, current_setting('shared_buffers') as sb,
            (select extversion from pg_extension where extname = 'vector') as pgv`,
  );
  const s = r.rows[0]!;
  return {
    db,
    suite,
    knex,
    server: `PostgreSQL ${s.v} (shared_buffers ${s.sb}), pgvector ${s.pgv}.`,
    async stop() {
      await knex.destroy();
      await suite.stop();
      await db.drop();
    },
  };
}
