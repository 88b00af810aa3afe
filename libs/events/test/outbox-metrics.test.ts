import assert from 'node:assert/strict';
import type { Database } from '@engram/db';
import { engramMetrics, type EngramMetrics } from '@engram/telemetry';
import { Registry } from 'prom-client';
import { appendEvent, InProcessBus, OutboxRelay, outboxBacklog } from '../src/index.ts';
import { captureLogger } from './support/capture-logger.ts';
import { ENGINES, openMigrated } from './support/databases.ts';
import { eventually } from './support/eventually.ts';
import { SwitchablePublisher } from './support/switchable-publisher.ts';

function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

for (const engine of ENGINES) {
  describe(`outbox metrics on ${engine}`, function () {
    this.timeout(60_000);
    let db: Database;

    before(async () => {
      db = await openMigrated(engine);
    });
    beforeEach(() => db.knex('audit_events').delete());
    after(() => db.close());

    const commit = (n: number) =>
      db.knex.transaction((trx) =>
        appendEvent(trx, {
          eventType: 'MEMORY_CREATED',
          projectId: 'team.metrics',
          agentId: 'agent-1',
          memoryId: `m-${n}`,
          apiKeyId: 'key-1',
          details: { n },
        }),
      );

    it('outboxBacklog counts unpublished events and ages the oldest on the database clock', async () => {
      assert.deepEqual(await outboxBacklog(db.knex), { pending: 0, oldestAgeSeconds: 0 });
      await commit(1);
      await db.knex('audit_events').update({ created_at: db.knex.raw(`now() - interval '90 seconds'`) });
      await commit(2);
      const backlog = await outboxBacklog(db.knex);
      assert.equal(backlog.pending, 2);
      assert.ok(
        backlog.oldestAgeSeconds >= 89 && backlog.oldestAgeSeconds < 200,
        String(backlog.oldestAgeSeconds),
      );
    });

    it('the relay counts published events and failed batches by reason', async () => {
      const metrics: EngramMetrics = engramMetrics(new Registry());
      const log = captureLogger();
      const publisher = new SwitchablePublisher(new InProcessBus({ logger: log.logger }));
      publisher.down = true;
      const relay = new OutboxRelay({
        db,
        publisher,
        logger: log.logger,
        pollIntervalMs: 10,
        maxBackoffMs: 20,
        metrics,
      });
      try {
        await commit(1);
        await commit(2);
        relay.start();
        relay.notify();
        await eventually(
          async () =>
            (sample(await metrics.scrape(), 'engram_events_publish_failures_total{reason="publisher"}') ??
              0) >= 2,
          {
            what: 'failed batches counted',
          },
        );
        assert.equal(sample(await metrics.scrape(), 'engram_events_published_total'), 0);
        publisher.down = false;
        await eventually(async () => sample(await metrics.scrape(), 'engram_events_published_total') === 2, {
          what: 'published events counted',
        });
      } finally {
        await relay.stop();
      }
    });
  });
}
