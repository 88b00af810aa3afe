import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrateLatest, migrateRollbackAll, openDatabase, type Database } from '@engram/db';
import type {
  IdempotencyClaim,
  IdempotencyLease,
  IdempotencyScope,
  IdempotentRequest,
} from '@engram/grpc-kit';
import { createLogger } from '@engram/logger';
import { ENGINES, openEngineDatabase, type EngineDatabase } from '@engram/testing';
import {
  AnswerSeal,
  idempotencyMigrations,
  KnexIdempotencyStore,
  type KnexIdempotencyStoreOptions,
} from '../src/index.ts';

const logger = createLogger({ service: 'test', level: 'silent' });
const DAY_MS = 24 * 3_600_000;
const seal = new AnswerSeal('integrity-key-of-the-test-deployment');

const request = (method: string, body: string): IdempotentRequest => ({
  method,
  fingerprint: createHash('sha256').update(body).digest(),
});
const ADD = request('/engram.ingest.v1.IngestService/AddMemory', 'first');

function acquired(claim: IdempotencyClaim): IdempotencyLease {
  assert.equal(claim.kind, 'acquired');
  return claim.lease;
}

for (const engine of ENGINES) {
  describe(`KnexIdempotencyStore on ${engine}`, function () {
    this.timeout(60_000);
    let engineDb: EngineDatabase;
    let db: Database;
    let n = 0;
    /** A fresh key per test, so tests never see each other's records. */
    let scope: IdempotencyScope;
    const store = (opts: Partial<KnexIdempotencyStoreOptions> = {}) =>
      new KnexIdempotencyStore({ knex: db.knex, ttlMs: DAY_MS, logger, seal, ...opts });

    before(async () => {
      engineDb = await openEngineDatabase(engine);
      db = engineDb.db;
      await migrateLatest(db, idempotencyMigrations);
    });
    beforeEach(() => {
      scope = { projectId: 'p1', keyId: 'k1', key: `key-${++n}` };
    });
    after(() => engineDb?.close());

    const row = async (s: IdempotencyScope = scope) =>
      (await db
        .knex('idempotency_records')
        .where({ project_id: s.projectId, api_key_id: s.keyId, idempotency_key: s.key })
        .first()) as { state: string; created_at: Date; expires_at: Date } | undefined;

    it('acquires a new key, answers in_progress while it runs, then replays the stored response', async () => {
      const s = store();
      const lease = acquired(await s.claim(scope, ADD));
      assert.deepEqual(await s.claim(scope, ADD), { kind: 'in_progress' });
      await lease.complete({ kind: 'response', response: Buffer.from('answer') });
      const again = await s.claim(scope, ADD);
      assert.equal(again.kind, 'replay');
      assert.deepEqual(again.kind === 'replay' && again.outcome, {
        kind: 'response',
        response: Buffer.from('answer'),
      });
      const stored = await row();
      assert.equal(stored?.state, 'done');
      const ttl = new Date(stored.expires_at).getTime() - new Date(stored.created_at).getTime();
      assert.equal(ttl, DAY_MS, 'expires TTL after it was created');
    });

    it('keeps answers sealed: the table never holds the answer, another replica opens it', async () => {
      const secret = Buffer.from('egk_the-raw-api-key-shown-once');
      await acquired(await store().claim(scope, ADD)).complete({ kind: 'response', response: secret });
      const [stored] = await db
        .knex('idempotency_records')
        .where({ idempotency_key: scope.key })
        .select<{ response: Uint8Array }[]>('response');
      const bytesAtRest = Buffer.from(stored!.response);
      assert.equal(bytesAtRest.includes(secret), false, 'the raw answer is not in the table');
      assert.equal(bytesAtRest.includes(Buffer.from('the-raw-api-key')), false);
      // Another process of the deployment (same integrity key) replays it.
      const replica = store({ seal: new AnswerSeal('integrity-key-of-the-test-deployment') });
      assert.deepEqual(await replica.claim(scope, ADD), {
        kind: 'replay',
        outcome: { kind: 'response', response: secret },
      });
    });

    it('refuses to replay, or to run again, an answer it cannot open: 422 IDEMPOTENCY_KEY_UNREADABLE', async () => {
      await acquired(await store().claim(scope, ADD)).complete({
        kind: 'response',
        response: Buffer.from('a'),
      });
      const rotated = store({ seal: new AnswerSeal('a rotated integrity key') });
      await assert.rejects(rotated.claim(scope, ADD), (err: Error & { reason?: string; code?: string }) => {
        assert.equal(err.reason, 'IDEMPOTENCY_KEY_UNREADABLE');
        assert.equal(err.code, 'FAILED_PRECONDITION');
        return true;
      });
      // A sealed answer moved into another record (another key of the same caller) does not open either.
      const other = { ...scope, key: `${scope.key}-moved` };
      const [kept] = await db
        .knex('idempotency_records')
        .where({ idempotency_key: scope.key })
        .select<{ response: Uint8Array }[]>('response');
      await acquired(await store().claim(other, ADD)).complete({
        kind: 'response',
        response: Buffer.from('b'),
      });
      await db
        .knex('idempotency_records')
        .where({ idempotency_key: other.key })
        .update({ response: Buffer.from(kept!.response) });
      await assert.rejects(store().claim(other, ADD), /can no longer be read/);
    });

    it('replays an answer stored before sealing (response_sealed false) as it is', async () => {
      await acquired(await store().claim(scope, ADD)).complete({
        kind: 'response',
        response: Buffer.from('x'),
      });
      await db
        .knex('idempotency_records')
        .where({ idempotency_key: scope.key })
        .update({ response: Buffer.from('legacy answer'), response_sealed: false });
      assert.deepEqual(await store().claim(scope, ADD), {
        kind: 'replay',
        outcome: { kind: 'response', response: Buffer.from('legacy answer') },
      });
    });

    it('replays an error outcome with its code, message and details', async () => {
      const s = store();
      await acquired(await s.claim(scope, ADD)).complete({
        kind: 'error',
        code: 9,
        message: 'refused',
        details: Buffer.from([1, 2, 3]),
      });
      assert.deepEqual(await s.claim(scope, ADD), {
        kind: 'replay',
        outcome: { kind: 'error', code: 9, message: 'refused', details: Buffer.from([1, 2, 3]) },
      });
    });

    it('answers reused for the key with another body or another RPC, running or done', async () => {
      const s = store();
      const lease = acquired(await s.claim(scope, ADD));
      const otherBody = request(ADD.method, 'second');
      const otherRpc = request('/engram.ace.v1.AceService/Vote', 'first');
      assert.deepEqual(await s.claim(scope, otherBody), { kind: 'reused' });
      await lease.complete({ kind: 'response', response: Buffer.from('a') });
      assert.deepEqual(await s.claim(scope, otherBody), { kind: 'reused' });
      assert.deepEqual(await s.claim(scope, otherRpc), { kind: 'reused' });
    });

    it('forgets a released claim, so that the retry runs again', async () => {
      const s = store();
      await acquired(await s.claim(scope, ADD)).release();
      assert.equal(await row(), undefined);
      acquired(await s.claim(scope, ADD));
    });

    it('scopes a key by project and by API key', async () => {
      const s = store();
      await acquired(await s.claim(scope, ADD)).complete({ kind: 'response', response: Buffer.from('a') });
      acquired(await s.claim({ ...scope, projectId: 'p2' }, ADD));
      acquired(await s.claim({ ...scope, keyId: 'k2' }, ADD));
    });

    it('acquires an expired record again, for any request', async () => {
      const s = store();
      await acquired(await s.claim(scope, ADD)).complete({ kind: 'response', response: Buffer.from('a') });
      await db
        .knex('idempotency_records')
        .where({ idempotency_key: scope.key })
        .update({ expires_at: db.knex.raw(`now() - interval '1 second'`) });
      const lease = acquired(await s.claim(scope, request(ADD.method, 'another body')));
      await lease.complete({ kind: 'response', response: Buffer.from('b') });
      assert.deepEqual(await s.claim(scope, request(ADD.method, 'another body')), {
        kind: 'replay',
        outcome: { kind: 'response', response: Buffer.from('b') },
      });
    });

    it('takes over an abandoned claim of the same request, never one of another request', async () => {
      const s = store();
      const dead = acquired(await s.claim(scope, ADD));
      await db
        .knex('idempotency_records')
        .where({ idempotency_key: scope.key })
        .update({ renewed_at: db.knex.raw(`now() - interval '1 hour'`) });
      assert.deepEqual(await s.claim(scope, request(ADD.method, 'another body')), { kind: 'reused' });
      const live = acquired(await s.claim(scope, ADD));
      // The first holder wakes up late: its outcome no longer counts.
      await dead.complete({ kind: 'response', response: Buffer.from('late') });
      assert.deepEqual(await s.claim(scope, ADD), { kind: 'in_progress' });
      await live.complete({ kind: 'response', response: Buffer.from('live') });
      assert.deepEqual(await s.claim(scope, ADD), {
        kind: 'replay',
        outcome: { kind: 'response', response: Buffer.from('live') },
      });
    });

    it('renews a running claim, so a long request is not taken over; an unrenewed one is', async () => {
      const renewing = store({ staleAfterMs: 400, renewEveryMs: 50 });
      const lease = acquired(await renewing.claim(scope, ADD));
      await sleep(900);
      assert.deepEqual(await renewing.claim(scope, ADD), { kind: 'in_progress' });
      await lease.release();

      const silent = store({ staleAfterMs: 400, renewEveryMs: 60_000 });
      const forgotten = acquired(await silent.claim(scope, ADD));
      await sleep(900);
      acquired(await silent.claim(scope, ADD));
      await forgotten.release(); // no longer its claim: deletes nothing
      assert.equal((await row())?.state, 'in_progress');
    });

    it('sweeps expired records and keeps the others', async () => {
      const s = store();
      const old = { ...scope, key: `${scope.key}-old` };
      await acquired(await s.claim(old, ADD)).complete({ kind: 'response', response: Buffer.from('a') });
      await acquired(await s.claim(scope, ADD)).complete({ kind: 'response', response: Buffer.from('b') });
      await db
        .knex('idempotency_records')
        .where({ idempotency_key: old.key })
        .update({ expires_at: db.knex.raw(`now() - interval '1 second'`) });
      assert.ok((await s.sweep()) >= 1);
      assert.equal(await row(old), undefined);
      assert.equal((await row())?.state, 'done');
    });

    it('of 20 concurrent claims of one key (two connection pools on PostgreSQL), exactly one acquires', async () => {
      const other = engineDb.url ? await openDatabase({ url: engineDb.url, poolMax: 5 }) : undefined;
      try {
        const stores = [
          store(),
          new KnexIdempotencyStore({ knex: (other ?? db).knex, ttlMs: DAY_MS, logger, seal }),
        ];
        const claims = await Promise.all(
          Array.from({ length: 20 }, (_, i) => stores[i % 2]!.claim(scope, ADD)),
        );
        const kinds = claims.map((c) => c.kind).sort();
        assert.deepEqual(kinds, ['acquired', ...Array<string>(19).fill('in_progress')]);
        for (const c of claims) if (c.kind === 'acquired') await c.lease.release();
      } finally {
        await other?.close();
      }
    });
  });
}

describe('idempotencyMigrations', () => {
  it('roll back', async () => {
    const scratch = await openDatabase({ dataDir: 'memory://' });
    try {
      await migrateLatest(scratch, idempotencyMigrations);
      assert.equal(await scratch.knex.schema.hasTable('idempotency_records'), true);
      await migrateRollbackAll(scratch, idempotencyMigrations);
      assert.equal(await scratch.knex.schema.hasTable('idempotency_records'), false);
    } finally {
      await scratch.close();
    }
  });
});
