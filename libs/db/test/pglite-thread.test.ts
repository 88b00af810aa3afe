import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../src/index.ts';
import { PGliteThread } from '../src/pglite-thread.ts';

/**
 * PGlite on its own thread (PGLITE_WORKER=true) answers as PGlite on the caller's thread does:
 * the same values, the same errors with their SQLSTATE, transactions that roll back, files that are
 * complete after close; and a thread that dies fails its calls instead of leaving them waiting.
 */
describe('PGlite on a worker thread', function () {
  this.timeout(120_000);

  async function fill(db: Database): Promise<void> {
    await db.knex.raw('create extension if not exists vector');
    await db.knex.raw(
      'create table t (id int primary key, at timestamptz, body jsonb, sig bytea, v vector(3), n bigint)',
    );
    await db.knex('t').insert({
      id: 1,
      at: new Date('2026-05-01T10:00:00Z'),
      body: { a: [1, 'two'] },
      sig: Buffer.from([0, 255, 7]),
      v: '[1,2,3]',
      n: 42,
    });
  }

  it('returns the same rows as PGlite on the main thread: dates, JSON, bytes, vectors, numbers', async () => {
    const rows: unknown[] = [];
    for (const pgliteWorker of [true, false]) {
      const db = await openDatabase({ dataDir: 'memory://', pgliteWorker });
      try {
        await fill(db);
        const [row] = await db.knex('t').select('*', db.knex.raw('v <-> ? as d', ['[1,2,4]']));
        rows.push(row);
      } finally {
        await db.close();
      }
    }
    const [threaded, here] = rows as Record<string, unknown>[];
    assert.ok(threaded!.at instanceof Date, 'a timestamptz arrives as a Date');
    assert.deepEqual(Buffer.from(threaded!.sig as Uint8Array), Buffer.from([0, 255, 7]));
    assert.deepEqual(
      { ...threaded, sig: Buffer.from(threaded!.sig as Uint8Array) },
      { ...here, sig: Buffer.from(here!.sig as Uint8Array) },
    );
    assert.equal(threaded!.d, 1);
  });

  it('keeps the SQLSTATE, constraint and detail of an error, and rolls a failed transaction back', async () => {
    const db = await openDatabase({ dataDir: 'memory://', pgliteWorker: true });
    try {
      await fill(db);
      const err = await db
        .knex('t')
        .insert({ id: 1 })
        .then(
          () => undefined,
          (e: unknown) => e as Record<string, unknown>,
        );
      assert.ok(err instanceof Error, 'an Error');
      assert.equal(err.code, '23505', 'unique violation');
      assert.equal(err.constraint, 't_pkey');
      assert.match(String(err.detail), /\(id\)=\(1\) already exists/);
      await assert.rejects(
        db.knex.transaction(async (trx) => {
          await trx('t').insert({ id: 2 });
          await trx.raw('select 1/0');
        }),
        (e: { code?: string }) => e.code === '22012',
      );
      assert.deepEqual(
        (await db.knex('t').select('id')).map((r: { id: number }) => r.id),
        [1],
        'the insert of the failed transaction is gone',
      );
    } finally {
      await db.close();
    }
  });

  it('writes files that PGlite on the main thread opens after close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-pglite-thread-'));
    try {
      const first = await openDatabase({ dataDir: dir, pgliteWorker: true });
      await fill(first);
      await first.close();
      const again = await openDatabase({ dataDir: dir, pgliteWorker: false });
      try {
        assert.deepEqual(await again.knex('t').pluck('n'), [42]);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails the calls of a thread that died, pending and later, instead of leaving them waiting', async () => {
    const thread = await PGliteThread.open('memory://');
    const pending = thread.query('select pg_sleep(2)');
    // What an abort inside the thread (out of memory, a WASM trap) looks like from this side.
    await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await assert.rejects(pending, /embedded database thread exited/);
    await assert.rejects(thread.query('select 1'), /embedded database thread exited/);
    assert.equal(thread.closed, true);
    await thread.close();
  });
});
