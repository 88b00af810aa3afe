import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEngramConfig } from '@engram/config';
import { createLogger } from '@engram/logger';
import {
  ApiClient,
  createTestDatabase,
  freshPgliteDir,
  type TestDatabase,
  type TestEngine,
} from '@engram/testing';
import { startEmbedded, type Embedded } from './embedded.ts';

export interface TestEngram {
  readonly engine: TestEngine;
  readonly engram: Embedded;
  readonly baseUrl: string;
  readonly grpcAddress: string;
  /** The bootstrap system key (SERVICE_API_KEY) and a client using it. */
  readonly adminKey: string;
  readonly admin: ApiClient;
  readonly integrityKey: string;
  readonly database?: TestDatabase;
  stop(): Promise<void>;
}

/**
 * The test harness of the embedded suite (exported as @engram/all-in-one/testing, so that no library
 * imports a service). The whole suite in this process on ports 0, on a fresh PGlite directory or a fresh PostgreSQL
 * database, with a random bootstrap key. Real servers, real storage; nothing mocked.
 */
export async function startTestEngram(
  engine: TestEngine,
  env: Record<string, string> = {},
): Promise<TestEngram> {
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-test-'));
  const adminKey = 'egk_test_' + randomBytes(24).toString('base64url');
  const integrityKey = randomBytes(32).toString('base64url');
  const database = engine === 'postgres' ? await createTestDatabase() : undefined;
  if (!database && !env.DATABASE_URL) await freshPgliteDir(join(dataDir, 'pglite'));
  const config = loadEngramConfig({
    ENGRAM_DATA_DIR: dataDir,
    ENGRAM_HTTP_PORT: '0',
    ENGRAM_GRPC_PORT: '0',
    SERVICE_API_KEY: adminKey,
    SERVICE_INTEGRITY_KEY: integrityKey,
    ENGRAM_INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
    EMBEDDING_PROVIDER: 'hash',
    LOG_LEVEL: process.env.ENGRAM_TEST_LOG_LEVEL ?? 'silent',
    DATABASE_POOL_MAX: '4',
    ...(database ? { DATABASE_URL: database.url } : {}),
    // No NATS: the suite publishes to its own bus, also on PostgreSQL. Each test's suite is alone on
    // its fresh database (replicas in one test all do the same), so no NATS relay loses events to it.
    ...(env.NATS_URL ? {} : { EVENTS_DELIVERY: 'in-process' }),
    ...env,
  });
  const engram = await startEmbedded(
    config,
    createLogger({ service: 'engram-test', level: config.logLevel }),
  );
  const baseUrl = `http://127.0.0.1:${engram.httpPort}`;
  return {
    engine,
    engram,
    baseUrl,
    grpcAddress: `127.0.0.1:${engram.grpcPort}`,
    adminKey,
    admin: new ApiClient(baseUrl, adminKey),
    integrityKey,
    database,
    async stop() {
      await engram.stop();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
