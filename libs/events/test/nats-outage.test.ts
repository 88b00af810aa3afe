import assert from 'node:assert/strict';
import type { Database } from '@engram/db';
import {
  appendEvent,
  auditSubject,
  decodeAuditPayload,
  encodeAuditPayload,
  NatsJetStreamPublisher,
  OutboxRelay,
  PublisherUnavailableError,
  toAuditPayload,
  type AuditEventRecord,
} from '../src/index.ts';
import { captureLogger } from './support/capture-logger.ts';
import { openMigrated } from './support/databases.ts';
import { eventually } from './support/eventually.ts';
import { JetStreamObserver, uniqueStream } from './support/jetstream.ts';
import { NatsServerProcess } from './support/nats-server-process.ts';

describe('NATS outage (own nats-server, PostgreSQL outbox)', function () {
  this.timeout(90_000);
  let server: NatsServerProcess;
  let db: Database;
  let publisher: NatsJetStreamPublisher;
  let relay: OutboxRelay;
  const { stream, subjectPrefix } = uniqueStream();
  const { logger, lines } = captureLogger('debug');

  before(async () => {
    server = await NatsServerProcess.start();
    db = await openMigrated('postgres');
    publisher = await NatsJetStreamPublisher.connect({
      servers: server.url,
      stream,
      subjectPrefix,
      logger,
      reconnectTimeWaitMs: 100,
    });
    relay = new OutboxRelay({ db, publisher, logger, subjectPrefix, pollIntervalMs: 50, maxBackoffMs: 400 });
    relay.start();
  });
  after(async () => {
    await relay.stop();
    await publisher.close();
    await db.close();
    await server.dispose();
  });

  const commit = (n: number): Promise<AuditEventRecord> =>
    db.knex.transaction((trx) =>
      appendEvent(trx, {
        eventType: 'TRUST_CHANGED',
        projectId: 'p.outage',
        details: { n, note: 'zz-not-in-logs' },
      }),
    );
  const attempts = async (id: string) =>
    Number((await db.knex('audit_events').where('event_id', id).first()).publish_attempts);

  it('commits writes while NATS is down, retries, and delivers each event exactly once when it is back', async () => {
    const before = await commit(0);
    relay.notify();
    const observer0 = await JetStreamObserver.connect(server.url);
    await eventually(async () => (await observer0.messageCount(stream).catch(() => 0)) === 1, {
      what: 'first event',
    });
    await observer0.close();

    await server.stop();
    await eventually(() => !publisher.isConnected(), { what: 'disconnect noticed' });
    const t0 = Date.now();
    await assert.rejects(
      publisher.publish(`${subjectPrefix}.x.Y`, new Uint8Array(), 'probe'),
      PublisherUnavailableError,
    );
    assert.ok(Date.now() - t0 < 2_500, 'a publish while disconnected hung');

    const during = await commit(1); // the write itself does not depend on NATS
    relay.notify();
    assert.ok(await db.knex('audit_events').where('event_id', during.eventId).first());
    // An attempt is recorded in the batch's statement, its failure counted when the batch returns.
    await eventually(
      async () => (await attempts(during.eventId)) >= 3 && relay.status().consecutiveFailures >= 3,
      { what: 'retries, each counted as a failed batch', timeoutMs: 15_000 },
    );
    const row = await db.knex('audit_events').where('event_id', during.eventId).first();
    assert.equal(row.published_at, null);

    await server.restart(); // same port, same JetStream store
    await eventually(() => publisher.isConnected(), { what: 'reconnect', timeoutMs: 15_000 });
    const observer = await JetStreamObserver.connect(server.url);
    try {
      await eventually(async () => (await observer.messageCount(stream)) === 2, {
        what: 'redelivery',
        timeoutMs: 15_000,
      });
      await eventually(
        async () => (await db.knex('audit_events').whereNull('published_at').first()) === undefined,
        {
          what: 'published_at',
        },
      );
      await new Promise((r) => setTimeout(r, 500)); // give a stray second copy time to arrive
      const msgs = await observer.readAll(stream);
      assert.deepEqual(
        msgs.map((m) => decodeAuditPayload(m.data).event_id),
        [before.eventId, during.eventId],
      );

      // The relay resending the same event (e.g. it published, then could not record it) is not stored twice.
      const payload = encodeAuditPayload(toAuditPayload(during));
      await publisher.publish(
        auditSubject(during.projectId, during.eventType, subjectPrefix),
        payload,
        during.eventId,
      );
      assert.equal(await observer.messageCount(stream), 2);
    } finally {
      await observer.close();
    }
    assert.ok(lines.some((l) => l.includes('publish failed; will retry')));
    assert.ok(lines.some((l) => l.includes('reconnected to NATS')));
    assert.ok(!lines.some((l) => l.includes('zz-not-in-logs')), 'a payload reached the log');
  });
});
