import assert from 'node:assert/strict';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { recordFigures } from './figures.ts';
import {
  collectErrors,
  LONG,
  printFailureLogs,
  runLoad,
  sleep,
  faultSuiteForTest,
  releaseFaultSuite,
  tally,
  timed,
  uniqueContent,
  type FaultSuite,
} from './support.ts';

const WRITERS = LONG ? 16 : 8;
const OUTAGE_MS = LONG ? 60_000 : 10_000;

interface Published {
  event_id: string;
  event_type: string;
  memory_id?: string;
}

/** Every message of the stream, read with an ordered consumer. */
async function readStream(url: string, stream: string): Promise<Published[]> {
  const nc = await connect({ servers: url });
  try {
    const total = (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;
    const consumer = await jetstream(nc).consumers.get(stream);
    const out: Published[] = [];
    while (out.length < total) {
      const batch = await consumer.fetch({ max_messages: Math.min(500, total - out.length), expires: 5_000 });
      let got = 0;
      for await (const m of batch) {
        out.push(m.json<Published>());
        got++;
      }
      if (got === 0) break;
    }
    return out;
  } finally {
    await nc.close();
  }
}

/**
 * NATS stopped for a minute (10 s in `make test`) while clients write: writes go on (the outbox holds
 * the events), and once NATS is back every audit event reaches a JetStream consumer exactly once and
 * the outbox drains to zero.
 */
describe('reliability: NATS stopped under a write load', function () {
  this.timeout(OUTAGE_MS + 240_000);
  let suite: FaultSuite;
  let errors = new Map<string, string[]>();

  before(async () => {
    suite = await faultSuiteForTest();
    errors = collectErrors(suite.engram);
  });
  after(() => releaseFaultSuite(suite));
  afterEach(function () {
    if (this.currentTest?.state === 'failed') printFailureLogs(suite, errors);
  });

  const pending = async () =>
    Number(
      (
        await suite.pg.query<{ n: string }>(
          'select count(*) as n from audit_events where published_at is null',
          [],
          'engram',
        )
      )[0]!.n,
    );

  it(`publishes every audit event exactly once after a ${OUTAGE_MS / 1000} s outage; the outbox drains to zero`, async () => {
    const { engram, nats } = suite;
    let peak = 0;
    let resumedAt = 0;
    const scenario = (async () => {
      await sleep(2_000);
      await nats.pause();
      await sleep(OUTAGE_MS);
      peak = await pending();
      await nats.resume();
      resumedAt = Date.now();
      await sleep(2_000);
    })();
    const outcomes = await runLoad(
      WRITERS,
      (c, seq) =>
        timed('add', engram.baseUrl, engram.adminKey, 'POST', '/memories/add', {
          content: uniqueContent(c, seq),
          agent_id: `writer-${c}`,
        }),
      scenario,
    );
    await scenario;
    assert.deepEqual(tally(outcomes), { 200: outcomes.length }, 'every write succeeds while NATS is down');
    assert.ok(peak > 0, 'events waited in the outbox during the outage');

    const deadline = Date.now() + 120_000;
    let left = await pending();
    while (left > 0 && Date.now() < deadline) {
      await sleep(250);
      left = await pending();
    }
    assert.equal(left, 0, 'the outbox drains to zero');
    const drainSeconds = Math.round((Date.now() - resumedAt) / 100) / 10;

    const events = await readStream(nats.url, suite.stream);
    const byEventId = new Map<string, number>();
    for (const e of events) byEventId.set(e.event_id, (byEventId.get(e.event_id) ?? 0) + 1);
    const duplicated = [...byEventId].filter(([, n]) => n > 1);
    assert.deepEqual(duplicated, [], 'no event published twice');
    const stored = await suite.pg.query<{ event_id: string }>(
      'select event_id from audit_events',
      [],
      'engram',
    );
    const missing = stored.filter((r) => !byEventId.has(r.event_id));
    assert.deepEqual(
      missing.slice(0, 5),
      [],
      `every audit event is at the consumer (${missing.length} missing)`,
    );
    const created = new Map<string, number>();
    for (const e of events)
      if (e.event_type === 'MEMORY_CREATED' && e.memory_id)
        created.set(e.memory_id, (created.get(e.memory_id) ?? 0) + 1);
    const notOnce = outcomes.filter((o) => created.get(o.id!) !== 1);
    assert.deepEqual(notOnce.slice(0, 5), [], 'one MEMORY_CREATED per acknowledged write');

    recordFigures(`nats-outage-${OUTAGE_MS / 1000}s`, {
      writers: WRITERS,
      writes: outcomes.length,
      outbox_peak: peak,
      events_at_consumer: events.length,
      audit_rows: stored.length,
      duplicates: duplicated.length,
      drain_seconds_after_nats_back: drainSeconds,
    });
  });
});
