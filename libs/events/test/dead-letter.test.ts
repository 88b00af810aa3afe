import assert from 'node:assert/strict';
import type { Database } from '@engram/db';
import { engramMetrics, type EngramMetrics } from '@engram/telemetry';
import { Registry } from 'prom-client';
import {
  appendEvent,
  decodeAuditPayload,
  InProcessBus,
  OutboxRelay,
  outboxBacklog,
  type AuditEventPayload,
  type OutboxRelayOptions,
} from '../src/index.ts';
import { captureLogger } from './support/capture-logger.ts';
import { ENGINES, openMigrated } from './support/databases.ts';
import { eventually } from './support/eventually.ts';
import { PoisonPublisher } from './support/poison-publisher.ts';

const MARKER = 'zz-dead-letter-payload-never-logged';

interface Row {
  event_id: string;
  event_type: string;
  details: Record<string, unknown> | string;
  published_at: Date | null;
  dead_lettered_at: Date | null;
  failed_attempts: number;
  publish_attempts: number;
  last_error: string | null;
}

function sample(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.slice(name.length + 1));
}

for (const engine of ENGINES) {
  describe(`the dead letter of the outbox relay on ${engine}`, function () {
    this.timeout(60_000);
    let db: Database;
    let publisher: PoisonPublisher;
    let received: AuditEventPayload[];
    let relay: OutboxRelay | undefined;
    let metrics: EngramMetrics;
    let log: ReturnType<typeof captureLogger>;
    let traffic: NodeJS.Timeout | undefined;

    before(async () => {
      db = await openMigrated(engine);
    });
    beforeEach(async () => {
      await db.knex('audit_events').delete();
      log = captureLogger();
      const bus = new InProcessBus({ logger: log.logger });
      received = [];
      bus.subscribe('engram.audit.>', (m) => void received.push(decodeAuditPayload(m.data)));
      publisher = new PoisonPublisher(bus);
      metrics = engramMetrics(new Registry());
    });
    afterEach(async () => {
      await stopWriting();
      await relay?.stop();
      relay = undefined;
      assert.ok(!log.lines.some((l) => l.includes(MARKER)), 'a payload reached the log');
    });
    after(() => db.close());

    function startRelay(opts: Partial<OutboxRelayOptions> = {}): OutboxRelay {
      relay = new OutboxRelay({
        db,
        publisher,
        logger: log.logger,
        metrics,
        pollIntervalMs: 20,
        maxBackoffMs: 100,
        maxFailedAttempts: 3,
        ...opts,
      });
      relay.start();
      return relay;
    }

    let n = 0;
    const commit = async (eventType = 'MEMORY_CREATED') =>
      (
        await db.knex.transaction((trx) =>
          appendEvent(trx, {
            eventType,
            projectId: 'team.dead',
            agentId: 'agent-1',
            memoryId: `m-${++n}`,
            details: { n, marker: MARKER },
          }),
        )
      ).eventId;

    /** Other writes keep arriving, as on a live system: the relay sees the publisher work meanwhile. */
    let writing: Promise<unknown>[] = [];
    function keepWriting(into: string[]): void {
      traffic = setInterval(() => {
        writing.push(commit().then((id) => into.push(id)));
        relay?.notify();
      }, 25);
    }
    /**
     * Stops the writes and waits for those still committing: one that commits later would land in
     * the list (or the next test's outbox) after the test has read them.
     */
    async function stopWriting(): Promise<void> {
      clearInterval(traffic);
      traffic = undefined;
      await Promise.allSettled(writing);
      writing = [];
    }

    const row = async (eventId: string): Promise<Row> =>
      (await db.knex('audit_events').where('event_id', eventId).first()) as Row;
    const records = async (): Promise<Row[]> =>
      (await db.knex('audit_events').where('event_type', 'EVENT_DEAD_LETTERED')) as Row[];
    const details = (r: Row) =>
      (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as Record<string, unknown>;
    const deadLetteredMetric = async () =>
      sample(await metrics.scrape(), 'engram_events_dead_lettered_total');

    it('moves an event that fails alone to the dead letter after N attempts; the events behind it flow', async () => {
      const poison = await commit();
      const behind = [await commit(), await commit()];
      publisher.failing.add(poison);
      startRelay();
      keepWriting(behind);

      await eventually(async () => (await row(poison)).dead_lettered_at !== null, {
        what: 'the dead letter',
      });
      await stopWriting();
      const dead = await row(poison);
      assert.equal(dead.published_at, null);
      assert.equal(dead.failed_attempts, 3);
      assert.match(dead.last_error ?? '', /the broker dropped this message/);
      assert.doesNotMatch(dead.last_error ?? '', new RegExp(MARKER));
      // Everything written behind it was published, the poison event never was.
      await eventually(() => behind.every((id) => received.some((r) => r.event_id === id)), {
        what: 'the events behind it',
      });
      assert.ok(!received.some((r) => r.event_id === poison));
      // The audit record names it, and is published like any event.
      const [record, ...more] = await records();
      assert.ok(record && more.length === 0);
      assert.deepEqual(details(record), {
        event_id: poison,
        event_type: 'MEMORY_CREATED',
        failed_attempts: 3,
        reason: 'failed',
      });
      await eventually(() => received.some((r) => r.event_id === record.event_id), { what: 'the record' });
      assert.equal(await deadLetteredMetric(), 1);
      assert.equal(relay!.status().deadLettered, 1);
      const errors = log.lines.filter((l) => l.includes('dead letter') && l.includes('"level":"error"'));
      assert.equal(errors.length, 1, errors.join('\n'));
      assert.ok(errors[0]!.includes(poison) && errors[0]!.includes('MEMORY_CREATED'));
      // The outbox no longer holds it: depth and age are those of the live outbox.
      await eventually(async () => (await outboxBacklog(db.knex)).pending === 0, { what: 'an empty outbox' });
    });

    it('while the whole publisher is down nothing is dead-lettered, and everything is published after', async () => {
      const ids = [await commit(), await commit(), await commit()];
      publisher.down = true;
      startRelay({ maxFailedAttempts: 2 });
      keepWriting(ids);
      await eventually(async () => (await row(ids[0]!)).publish_attempts >= 8, {
        what: 'eight failed attempts of the oldest event',
      });
      await stopWriting();
      const rows = await db.knex<Row>('audit_events');
      assert.ok(rows.every((r) => r.dead_lettered_at === null && r.failed_attempts === 0));
      assert.equal(received.length, 0);

      publisher.down = false;
      await eventually(() => received.length === ids.length, { what: 'delivery after the outage' });
      assert.deepEqual(
        received.map((r) => r.event_id),
        ids,
      );
      assert.equal((await records()).length, 0);
      assert.equal(await deadLetteredMetric(), 0);
    });

    it('counts a refusal by the broker at once: a refused event reaches the dead letter even alone', async () => {
      const refused = await commit();
      publisher.rejected.add(refused);
      startRelay();
      await eventually(async () => (await row(refused)).dead_lettered_at !== null, {
        what: 'the dead letter',
      });
      const [record] = await records();
      assert.equal(details(record!).reason, 'rejected');
      await eventually(() => received.some((r) => r.event_id === record!.event_id), { what: 'the record' });
      // Marked published when its batch commits; the dead letter itself is not in the outbox.
      await eventually(async () => (await outboxBacklog(db.knex)).pending === 0, { what: 'an empty outbox' });
      assert.deepEqual(await outboxBacklog(db.knex), { pending: 0, oldestAgeSeconds: 0 });
    });

    it('a dead-letter record that cannot be published is dead-lettered without another record', async () => {
      const refused = await commit();
      publisher.rejected.add(refused);
      publisher.rejectSubject = (subject) => subject.endsWith('.EVENT_DEAD_LETTERED');
      startRelay({ maxFailedAttempts: 2 });
      await eventually(async () => (await deadLetteredMetric()) === 2, { what: 'two dead letters' });
      await new Promise((r) => setTimeout(r, 200)); // more polls: nothing else appears
      const [record, ...more] = await records();
      assert.ok(record && more.length === 0, 'one EVENT_DEAD_LETTERED record, no record of the record');
      assert.notEqual((await row(record.event_id)).dead_lettered_at, null);
      assert.equal(await deadLetteredMetric(), 2);
      assert.equal(
        Number((await db.knex('audit_events').count({ n: '*' }))[0]!.n),
        2,
        'the event and its record, nothing more',
      );
    });
  });
}
