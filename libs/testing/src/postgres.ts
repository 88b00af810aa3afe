import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL server tests use (with pgvector); `make test` makes sure it runs. */
export function testServerUrl(): string {
  return process.env.ENGRAM_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testServerUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/** A fresh, empty database with the vector extension, dropped by drop(). */
export async function createTestDatabase(prefix = 'engram_t'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  const url = withDatabase(testServerUrl(), name);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('create extension if not exists vector');
  await c.end();
  return {
    url,
    name,
    drop: () => admin((c2) => c2.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}
