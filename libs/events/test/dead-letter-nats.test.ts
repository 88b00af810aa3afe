import assert from 'node:assert/strict';
import { StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Database } from '@engram/db';
import { engramMetrics } from '@engram/telemetry';
import { Registry } from 'prom-client';
import { appendEvent, decodeAuditPayload, NatsJetStreamPublisher, OutboxRelay } from '../src/index.ts';
import { captureLogger } from './support/capture-logger.ts';
import { openMigrated } from './support/databases.ts';
import { eventually } from './support/eventually.ts';
import { JetStreamObserver, SHARED_NATS, uniqueStream } from './support/jetstream.ts';

/**
 * The real publisher on a real nats-server whose stream takes messages of at most 2 KiB: JetStream
 * refuses the one larger event while it stores the others, and the relay dead-letters it.
 */
describe('a poison event on real JetStream (max_msg_size) goes to the dead letter', function () {
  this.timeout(60_000);
  const { stream, subjectPrefix } = uniqueStream();
  let observer: JetStreamObserver;
  let db: Database;
  let publisher: NatsJetStreamPublisher;
  let relay: OutboxRelay;

  before(async () => {
    observer = await JetStreamObserver.connect(SHARED_NATS);
    await observer.jsm.streams.add({
      name: stream,
      subjects: [`${subjectPrefix}.>`],
      storage: StorageType.File,
      duplicate_window: nanos(120_000),
      max_msg_size: 2048,
    });
    db = await openMigrated('postgres');
  });
  after(async () => {
    await relay?.stop();
    await publisher?.close();
    await db?.close();
    await observer.deleteStream(stream);
    await observer.close();
  });

  it('refuses the oversized event, stores the others and the EVENT_DEAD_LETTERED record', async () => {
    const commit = (n: number, size: number) =>
      db.knex.transaction((trx) =>
        appendEvent(trx, {
          eventType: 'MEMORY_CREATED',
          projectId: 'team.nats',
          memoryId: `m-${n}`,
          details: { n, padding: 'p'.repeat(size) },
        }),
      );
    const small = [(await commit(1, 10)).eventId];
    const oversized = (await commit(2, 4096)).eventId;
    small.push((await commit(3, 10)).eventId, (await commit(4, 10)).eventId);

    const { logger } = captureLogger('warn');
    const metrics = engramMetrics(new Registry());
    publisher = await NatsJetStreamPublisher.connect({ servers: SHARED_NATS, stream, subjectPrefix, logger });
    relay = new OutboxRelay({
      db,
      publisher,
      logger,
      metrics,
      subjectPrefix,
      pollIntervalMs: 20,
      maxBackoffMs: 200,
      maxFailedAttempts: 3,
    });
    relay.start();

    const row = async () =>
      (await db.knex('audit_events').where('event_id', oversized).first()) as {
        dead_lettered_at: Date | null;
        published_at: Date | null;
        failed_attempts: number;
        last_error: string;
      };
    await eventually(async () => (await row()).dead_lettered_at !== null, { what: 'the dead letter' });
    const dead = await row();
    assert.equal(dead.published_at, null);
    assert.equal(dead.failed_attempts, 3);
    assert.match(dead.last_error, /message size exceeds maximum/);

    const stored = await eventually(
      async () => {
        const msgs = await observer.readAll(stream);
        return msgs.length === small.length + 1 ? msgs : undefined;
      },
      { what: 'three events and the record in the stream' },
    );
    const payloads = stored.map((m) => decodeAuditPayload(m.data));
    assert.deepEqual(
      payloads.filter((p) => p.event_type === 'MEMORY_CREATED').map((p) => p.event_id),
      small,
    );
    const record = payloads.find((p) => p.event_type === 'EVENT_DEAD_LETTERED');
    assert.ok(record);
    assert.equal(record.details.event_id, oversized);
    assert.equal(record.details.reason, 'rejected');
    assert.match(await metrics.scrape(), /^engram_events_dead_lettered_total 1$/m);
  });
});
