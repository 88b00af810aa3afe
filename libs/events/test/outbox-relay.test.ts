import assert from 'node:assert/strict';
import type { Database } from '@engram/db';
import {
  appendEvent,
  decodeAuditPayload,
  InProcessBus,
  OutboxRelay,
  type AuditEventPayload,
  type AuditEventRecord,
  type OutboxRelayOptions,
} from '../src/index.ts';
import { captureLogger } from './support/capture-logger.ts';
import { ENGINES, openMigrated } from './support/databases.ts';
import { eventually } from './support/eventually.ts';
import { SwitchablePublisher } from './support/switchable-publisher.ts';

const MARKER = 'zz-payload-marker-never-logged';

for (const engine of ENGINES) {
  describe(`OutboxRelay on ${engine} with the in-process bus`, function () {
    this.timeout(60_000);
    let db: Database;
    let bus: InProcessBus;
    let received: { subject: string; payload: AuditEventPayload }[];
    let relay: OutboxRelay | undefined;
    let log: ReturnType<typeof captureLogger>;

    before(async () => {
      db = await openMigrated(engine);
    });
    beforeEach(async () => {
      await db.knex('audit_events').delete();
      log = captureLogger();
      bus = new InProcessBus({ logger: log.logger });
      received = [];
      bus.subscribe(
        'engram.audit.>',
        (m) => void received.push({ subject: m.subject, payload: decodeAuditPayload(m.data) }),
      );
    });
    afterEach(async () => {
      await relay?.stop();
      relay = undefined;
      assert.ok(!log.lines.some((l) => l.includes(MARKER)), 'a payload reached the log');
    });
    after(async () => {
      await db.close();
    });

    function startRelay(opts: Partial<OutboxRelayOptions> = {}): OutboxRelay {
      relay = new OutboxRelay({
        db,
        publisher: bus,
        logger: log.logger,
        pollIntervalMs: 20,
        maxBackoffMs: 100,
        ...opts,
      });
      relay.start();
      return relay;
    }

    async function commitEvent(projectId = 'team.alpha', n = 0): Promise<AuditEventRecord> {
      return db.knex.transaction((trx) =>
        appendEvent(trx, {
          eventType: 'MEMORY_CREATED',
          projectId,
          agentId: 'agent-1',
          memoryId: `m-${n}`,
          apiKeyId: 'key-1',
          details: { n, marker: MARKER },
        }),
      );
    }

    const unpublished = async () =>
      Number((await db.knex('audit_events').whereNull('published_at').count({ n: '*' }))[0]!.n);

    it('relays a committed event with its subject and payload, and marks it published', async () => {
      startRelay();
      const ev = await commitEvent('team.alpha');
      await eventually(() => received.length === 1, { what: 'delivery' });
      assert.equal(received[0]!.subject, 'engram.audit.team%2Ealpha.MEMORY_CREATED');
      assert.deepEqual(received[0]!.payload, {
        event_id: ev.eventId,
        event_type: 'MEMORY_CREATED',
        project_id: 'team.alpha',
        agent_id: 'agent-1',
        memory_id: 'm-0',
        api_key_id: 'key-1',
        details: { n: 0, marker: MARKER },
        created_at: ev.createdAt.toISOString(),
      });
      await eventually(async () => (await unpublished()) === 0, { what: 'published_at' });
      const row = await db.knex('audit_events').where('event_id', ev.eventId).first();
      assert.equal(row.publish_attempts, 1);
      assert.ok(row.published_at instanceof Date);
    });

    it('never relays an event whose transaction rolled back', async () => {
      startRelay();
      await assert.rejects(
        db.knex.transaction(async (trx) => {
          await appendEvent(trx, { eventType: 'MEMORY_DELETED', projectId: 'p', memoryId: 'gone' });
          throw new Error('rolled back');
        }),
      );
      const kept = await commitEvent('p', 1);
      await eventually(() => received.length >= 1, { what: 'delivery' });
      await new Promise((r) => setTimeout(r, 100)); // a few more polls
      assert.deepEqual(
        received.map((r) => r.payload.event_id),
        [kept.eventId],
      );
    });

    it('publishes at once after notify(), not at the next poll', async () => {
      startRelay({ pollIntervalMs: 5_000, maxBackoffMs: 5_000 });
      await new Promise((r) => setTimeout(r, 100)); // the first (empty) batch is done; the relay sleeps
      const start = Date.now();
      await commitEvent();
      relay!.notify();
      await eventually(() => received.length === 1, { what: 'delivery', timeoutMs: 2_000 });
      assert.ok(Date.now() - start < 2_000);
    });

    it('relays in batches, in created_at order, each event once', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) ids.push((await commitEvent(`p${i % 3}`, i)).eventId);
      startRelay({ batchSize: 7 });
      await eventually(() => received.length === 25, { what: '25 deliveries' });
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(
        received.map((r) => r.payload.event_id),
        ids,
      );
      assert.equal(await unpublished(), 0);
    });

    it('keeps retrying the oldest event while publishing fails, counts no failure of its own, then delivers all in order, once', async () => {
      const flaky = new SwitchablePublisher(bus);
      flaky.down = true;
      const ids = [(await commitEvent('p', 1)).eventId, (await commitEvent('p', 2)).eventId];
      startRelay({ publisher: flaky });
      const third = (await commitEvent('p', 3)).eventId;
      relay!.notify();
      // The attempt is recorded in the batch's statement, the failure counted when the batch returns:
      // both are waited for, or a third attempt still in flight reads as two failures.
      await eventually(
        async () =>
          Number((await db.knex('audit_events').where('event_id', ids[0]).first()).publish_attempts) >= 3 &&
          relay!.status().consecutiveFailures >= 3,
        { what: 'three failed attempts, each counted as a failed batch' },
      );
      // After a failure the relay tries the next event once (did the publisher fail, or the event?);
      // both fail, so it stops there: the third event is never tried while the publisher is down.
      assert.ok(
        flaky.attempts.every((id) => id === ids[0] || id === ids[1]),
        'the relay went on past the probe of the next event',
      );
      assert.equal(received.length, 0);
      assert.equal(await unpublished(), 3);

      flaky.down = false;
      await eventually(() => received.length === 3, { what: 'delivery after recovery' });
      await eventually(async () => (await unpublished()) === 0, { what: 'all marked' });
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(
        received.map((r) => r.payload.event_id),
        [...ids, third],
      );
      await eventually(() => relay!.status().consecutiveFailures === 0, { what: 'the failures reset' });
      const rows = await db.knex('audit_events').orderBy('event_id');
      const attempts = rows.map((r) => Number(r.publish_attempts));
      assert.ok(attempts[0]! >= 4 && attempts[1]! >= 2 && attempts[2] === 1, JSON.stringify(attempts));
      // An outage is nobody's own failure: nothing moved toward the dead letter.
      assert.deepEqual(
        rows.map((r): unknown[] => [Number(r.failed_attempts), r.dead_lettered_at]),
        [
          [0, null],
          [0, null],
          [0, null],
        ],
      );
      assert.ok(log.lines.some((l) => l.includes('publish failed; will retry') && l.includes(ids[0]!)));
    });

    it('stop() waits for the batch in flight, which is then recorded as published', async () => {
      bus.subscribe('engram.audit.>', () => new Promise((r) => setTimeout(r, 30)));
      for (let i = 0; i < 8; i++) await commitEvent('p', i);
      startRelay({ batchSize: 8 });
      await eventually(() => received.length >= 1, { what: 'first delivery' });
      await relay!.stop();
      assert.equal(relay!.status().running, false);
      assert.equal(received.length, 8);
      assert.equal(await unpublished(), 0);
    });
  });
}
