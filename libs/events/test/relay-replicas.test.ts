import assert from 'node:assert/strict';
import type { Database } from '@engram/db';
import { appendEvent, decodeAuditPayload, NatsJetStreamPublisher, OutboxRelay } from '../src/index.ts';
import { captureLogger } from './support/capture-logger.ts';
import { openMigrated } from './support/databases.ts';
import { eventually } from './support/eventually.ts';
import { JetStreamObserver, SHARED_NATS, uniqueStream } from './support/jetstream.ts';
import { SwitchablePublisher } from './support/switchable-publisher.ts';

const EVENTS = 300;

describe('two relays on one PostgreSQL database', function () {
  this.timeout(90_000);
  const { stream, subjectPrefix } = uniqueStream();
  const { logger } = captureLogger('warn');
  let observer: JetStreamObserver;
  const dbs: Database[] = [];
  const publishers: SwitchablePublisher[] = [];
  const relays: OutboxRelay[] = [];

  before(async () => {
    observer = await JetStreamObserver.connect(SHARED_NATS);
    for (let i = 0; i < 2; i++) {
      const db = await openMigrated('postgres'); // each replica has its own pool
      const nats = await NatsJetStreamPublisher.connect({
        servers: SHARED_NATS,
        stream,
        subjectPrefix,
        logger,
      });
      // Counts what each relay really sent: JetStream de-duplication would hide a double publish.
      const publisher = new SwitchablePublisher(nats);
      dbs.push(db);
      publishers.push(publisher);
      relays.push(
        new OutboxRelay({ db, publisher, logger, subjectPrefix, batchSize: 10, pollIntervalMs: 10 }),
      );
    }
  });
  after(async () => {
    for (const r of relays) await r.stop();
    for (const p of publishers) await p.close();
    for (const d of dbs) await d.close();
    await observer.deleteStream(stream);
    await observer.close();
  });

  it('never publish an event twice: the stream holds exactly one message per event', async () => {
    for (const r of relays) r.start();
    const ids = new Set<string>();
    for (let batch = 0; batch < EVENTS / 20; batch++) {
      await dbs[batch % 2]!.knex.transaction(async (trx) => {
        for (let i = 0; i < 20; i++) {
          ids.add(
            (await appendEvent(trx, { eventType: 'VOTED', projectId: `p${i % 4}`, details: { batch, i } }))
              .eventId,
          );
        }
      });
      for (const r of relays) r.notify();
    }
    await eventually(async () => (await observer.messageCount(stream).catch(() => 0)) >= EVENTS, {
      what: `${EVENTS} messages`,
      timeoutMs: 60_000,
    });
    await eventually(
      async () => (await dbs[0]!.knex('audit_events').whereNull('published_at').first()) === undefined,
      {
        what: 'all marked published',
      },
    );
    await new Promise((r) => setTimeout(r, 300));

    const sent = [...publishers[0]!.delivered, ...publishers[1]!.delivered];
    assert.equal(sent.length, EVENTS, 'an event was published more than once');
    assert.deepEqual(new Set(sent), ids);
    assert.ok(
      publishers.every((p) => p.delivered.length > 0),
      'one relay did all the work: no contention tested',
    );
    assert.equal(await observer.messageCount(stream), EVENTS);
    const stored = (await observer.readAll(stream)).map((m) => decodeAuditPayload(m.data).event_id);
    assert.deepEqual(new Set(stored), ids);
    const attempts = await dbs[1]!.knex('audit_events').max({ m: 'publish_attempts' }).first();
    assert.equal(Number(attempts?.m), 1);
  });
});
