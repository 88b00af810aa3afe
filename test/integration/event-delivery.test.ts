import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadEngramConfig } from '@engram/config';
import { migrateLatest, openDatabase } from '@engram/db';
import { appendEvent, eventsMigrations } from '@engram/events';
import { eventDelivery, ServiceProcess } from '@engram/platform';
import {
  compiledEntry,
  createTestDatabase,
  ManagedProcess,
  REPO_ROOT,
  type TestDatabase,
} from '@engram/testing';

const PG = 'postgres://postgres@127.0.0.1:5432/engram';
const NATS = 'nats://127.0.0.1:4222';

function refusal(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  assert.fail('expected a ConfigError');
}

describe('where the outbox relay publishes (EVENTS_DELIVERY)', function () {
  this.timeout(60_000);

  it('embedded: the in-process bus; with NATS_URL: NATS; on PostgreSQL without NATS_URL: refused', () => {
    assert.equal(eventDelivery(loadEngramConfig({})), 'in-process');
    assert.equal(eventDelivery(loadEngramConfig({ NATS_URL: NATS })), 'nats');
    assert.equal(eventDelivery(loadEngramConfig({ DATABASE_URL: PG, NATS_URL: NATS })), 'nats');
    const err = refusal(() => eventDelivery(loadEngramConfig({ DATABASE_URL: PG })));
    assert.equal(err.variable, 'NATS_URL');
    assert.match(err.message, /NATS_URL: is required when DATABASE_URL is set/);
    assert.match(err.message, /EVENTS_DELIVERY=in-process/);
    assert.doesNotMatch(err.message, /\n/);
  });

  it('EVENTS_DELIVERY=in-process is the explicit opt-out of NATS on PostgreSQL, and nats insists on NATS_URL', () => {
    assert.equal(
      eventDelivery(loadEngramConfig({ DATABASE_URL: PG, EVENTS_DELIVERY: 'in-process' })),
      'in-process',
    );
    assert.equal(
      refusal(() => eventDelivery(loadEngramConfig({ EVENTS_DELIVERY: 'in-process', NATS_URL: NATS })))
        .variable,
      'EVENTS_DELIVERY',
    );
    assert.equal(
      refusal(() => eventDelivery(loadEngramConfig({ EVENTS_DELIVERY: 'nats' }))).variable,
      'NATS_URL',
    );
    assert.equal(refusal(() => loadEngramConfig({ EVENTS_DELIVERY: 'kafka' })).variable, 'EVENTS_DELIVERY');
  });

  it('a service process refuses before it opens the database', async () => {
    // Nothing listens on port 1: a platform that got as far as the database would fail differently.
    const config = loadEngramConfig({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      SERVICE_INTEGRITY_KEY: 'k'.repeat(32),
      ENGRAM_INTERNAL_TOKEN: 't'.repeat(32),
    });
    await assert.rejects(
      ServiceProcess.open({ config, service: 'test' }),
      (err: unknown) => err instanceof ConfigError && err.variable === 'NATS_URL',
    );
  });

  describe('a process on PostgreSQL without NATS_URL', () => {
    let db: TestDatabase;
    let waiting: string;

    before(async () => {
      db = await createTestDatabase('engram_delivery');
      const d = await openDatabase({ url: db.url, poolMax: 2 }); // the migration lock holds one
      try {
        await migrateLatest(d, eventsMigrations);
        waiting = (await appendEvent(d.knex, { eventType: 'KEY_CREATED', projectId: 'default' })).eventId;
      } finally {
        await d.close();
      }
    });
    after(async () => {
      await db?.drop();
    });

    for (const pkg of ['services/memory-store', 'services/all-in-one']) {
      it(`${pkg} exits 1 with one line naming NATS_URL, and leaves the outbox alone`, async () => {
        const proc = ManagedProcess.spawn(
          pkg,
          process.execPath,
          compiledEntry(pkg, 'main'),
          {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            DATABASE_URL: db.url,
            SERVICE_INTEGRITY_KEY: randomBytes(32).toString('base64url'),
            ENGRAM_INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
            ENGRAM_GRPC_PORT: '0',
            ENGRAM_HTTP_PORT: '0',
            EMBEDDING_PROVIDER: 'hash',
          },
          REPO_ROOT,
        );
        const code = await new Promise<number | null>((resolve) => proc.child.once('close', resolve));
        assert.equal(code, 1, proc.tail());
        assert.equal(proc.output.length, 1, proc.tail());
        assert.match(proc.output[0]!, /failed to start: invalid configuration: NATS_URL: is required/);
        const d = await openDatabase({ url: db.url, poolMax: 1 });
        try {
          const row = (await d.knex('audit_events').where('event_id', waiting).first()) as {
            published_at: Date | null;
            publish_attempts: number;
          };
          assert.deepEqual([row.published_at, row.publish_attempts], [null, 0], 'the event was relayed');
        } finally {
          await d.close();
        }
      });
    }
  });
});
