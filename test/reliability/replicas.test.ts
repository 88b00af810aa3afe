import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { PrivatePostgres, TestNatsServer } from '@engram/testing';
import { recordFigures } from './figures.ts';
import { startReplicated, type ReplicatedSuite } from './replicated-suite.ts';
import { LONG, runLoad, sleep, tally, timed, UNLIMITED, uniqueContent, type Outcome } from './support.ts';

const CLIENTS = 8;
const SPREAD_MS = LONG ? 30_000 : 6_000;
const ADD = 'AddMemory';
const QUERY = 'Query';

/**
 * Two replicas each of ingest-security and retrieval-ranking, reached through one multi-address
 * target balanced round robin by grpc-js. The load spreads over both; SIGKILL of one replica of each
 * under load loses no request that was not in flight at the kill; reads in flight are retried on the
 * surviving replica (the gateway's retry policy), and writes in flight, answered 503, are safe to
 * retry with their Idempotency-Key: exactly one memory each.
 */
describe('reliability: two replicas behind client-side round robin, one SIGKILLed under load', function () {
  this.timeout(LONG ? 600_000 : 240_000);
  let pg: PrivatePostgres;
  let nats: TestNatsServer;
  let suite: ReplicatedSuite;

  before(async () => {
    pg = await PrivatePostgres.create();
    nats = await TestNatsServer.start();
    suite = await startReplicated({
      databaseUrl: await pg.createDatabase('engram'),
      natsUrl: nats.url,
      natsStream: `ENGRAM_AUDIT_REP_${randomBytes(4).toString('hex').toUpperCase()}`,
      replicas: { 'ingest-security': 2, 'retrieval-ranking': 2 },
      env: UNLIMITED,
    });
  });
  after(async () => {
    await suite?.stop();
    await nats?.stop();
    await pg?.remove();
  });
  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const p of suite.processes) console.log(p.proc.tail(15));
    console.log(suite.gateway.tail(30));
  });

  const write = (c: number, seq: number) => {
    const content = uniqueContent(c, seq);
    const key = `rep-${c}-${seq}-${randomBytes(4).toString('hex')}`;
    return timed(
      `add ${key} ${content}`,
      suite.baseUrl,
      suite.adminKey,
      'POST',
      '/memories/add',
      { content, agent_id: `writer-${c}` },
      { 'idempotency-key': key },
    );
  };
  const read = () =>
    timed('query', suite.baseUrl, suite.adminKey, 'POST', '/memories/query', {
      query: 'staging certificates rotation',
    });
  /** Half the clients write, half read. */
  const step = (c: number, seq: number) => (c % 2 === 0 ? write(c, seq) : read());

  async function counts(service: string, method: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const p of suite.replicas(service)) out[p.name] = await suite.handled(p, method);
    return out;
  }

  it('spreads writes and reads over both replicas of each service', async () => {
    const before = {
      add: await counts('ingest-security', ADD),
      query: await counts('retrieval-ranking', QUERY),
    };
    const outcomes = await runLoad(CLIENTS, step, sleep(SPREAD_MS));
    assert.deepEqual(tally(outcomes), { 200: outcomes.length });
    const add = await counts('ingest-security', ADD);
    const query = await counts('retrieval-ranking', QUERY);
    for (const [name, n] of Object.entries(add)) add[name] = n - (before.add[name] ?? 0);
    for (const [name, n] of Object.entries(query)) query[name] = n - (before.query[name] ?? 0);
    for (const per of [add, query]) {
      const values = Object.values(per);
      const total = values.reduce((a, b) => a + b, 0);
      assert.ok(total > 0);
      for (const v of values)
        assert.ok(v >= total * 0.3, `each replica takes its share: ${JSON.stringify(per)}`);
    }
    recordFigures('replicas-spread', {
      seconds: SPREAD_MS / 1000,
      clients: CLIENTS,
      add_per_replica: add,
      query_per_replica: query,
    });
  });

  it('SIGKILL of one replica of each: no request lost that was not in flight; reads retried; keyed writes retried once', async () => {
    let diedAt = 0;
    const scenario = (async () => {
      await sleep(3_000);
      await Promise.all([
        suite.replicas('ingest-security')[1]!.proc.kill(),
        suite.replicas('retrieval-ranking')[1]!.proc.kill(),
      ]);
      diedAt = Date.now();
      await sleep(LONG ? 20_000 : 5_000);
    })();
    const outcomes = await runLoad(CLIENTS, step, scenario);
    await scenario;
    const reads = outcomes.filter((o) => o.op === 'query');
    const writes = outcomes.filter((o) => o.op.startsWith('add '));
    assert.deepEqual(tally(reads), { 200: reads.length }, 'every read answered (retried on the survivor)');
    const failed = writes.filter((o) => o.status !== 200);
    const notInFlight = failed.filter((o) => o.startedAt >= diedAt);
    assert.deepEqual(notInFlight, [], 'no write started after the kill failed');
    // The gateway sends a keyed write whose connection failed once more; when the dead replica had
    // already claimed the key, the second try answers 409 IDEMPOTENCY_KEY_IN_PROGRESS (retry later).
    assert.ok(
      failed.every(
        (o) => o.status === 503 || (o.status === 409 && o.reason === 'IDEMPOTENCY_KEY_IN_PROGRESS'),
      ),
      `a write in flight at the kill is a 503 or a 409 IDEMPOTENCY_KEY_IN_PROGRESS, never a 500 or a dropped connection: ${JSON.stringify(tally(failed))}`,
    );
    // The failed writes, retried with their key until answered (a claim of the dead replica is taken
    // over once stale, 30 s; meanwhile the key answers 409 IDEMPOTENCY_KEY_IN_PROGRESS).
    const retried: Outcome[] = [];
    for (const o of failed) {
      const [, key, ...words] = o.op.split(' ');
      const content = words.join(' ');
      const deadline = Date.now() + 60_000;
      for (;;) {
        const again = await timed(
          'retry',
          suite.baseUrl,
          suite.adminKey,
          'POST',
          '/memories/add',
          {
            content,
            agent_id: `writer-${/writer (\d+)/.exec(content)?.[1]}`,
          },
          { 'idempotency-key': key! },
        );
        if (again.status === 200 || Date.now() > deadline) {
          retried.push(again);
          break;
        }
        assert.ok([409, 503].includes(again.status), `retry: ${again.status} ${again.reason}`);
        await sleep(1_000);
      }
    }
    assert.deepEqual(tally(retried), retried.length ? { 200: retried.length } : {});
    const contents = writes.map((o) => o.op.split(' ').slice(2).join(' '));
    const rows = await pg.query<{ content: string; n: string }>(
      'select content, count(*) as n from memories where content = any($1::text[]) group by content',
      [contents],
      'engram',
    );
    const once = new Map(rows.map((r) => [r.content, Number(r.n)]));
    const notOnce = contents.filter((c) => once.get(c) !== 1);
    assert.deepEqual(notOnce.slice(0, 3), [], 'every write is stored exactly once');
    recordFigures('replicas-sigkill', {
      clients: CLIENTS,
      reads: reads.length,
      reads_failed: reads.length - reads.filter((o) => o.status === 200).length,
      writes: writes.length,
      writes_in_flight_failed: failed.length,
      writes_failed_after_kill: notInFlight.length,
      retried_with_key_ok: retried.filter((o) => o.status === 200).length,
      stored_exactly_once: contents.length - notOnce.length,
    });
  });
});
