import assert from 'node:assert/strict';
import { ENGINES } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

/** A GitHub token shape, built at runtime so no secret-looking literal sits in the repository. */
const GITHUB_TOKEN = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0'.repeat(2).slice(0, 36);
const AGENT_LIMIT = 8;

const INGEST = 'grpc_type="unary",grpc_service="engram.ingest.v1.IngestService"';
const RETRIEVAL = 'grpc_type="unary",grpc_service="engram.retrieval.v1.RetrievalService"';

/** Value of one series in exposition text (`name{labels}`), or undefined when absent. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

for (const engine of ENGINES) {
  describe(`Prometheus metrics of the embedded process (${engine})`, function () {
    this.timeout(120_000);
    let t: TestEngram;
    let scrape: () => Promise<string>;

    before(async () => {
      t = await startTestEngram(engine, { RATE_LIMIT_AGENT_PER_MINUTE: String(AGENT_LIMIT) });
      scrape = async () => {
        const res = await fetch(`${t.baseUrl}/metrics`);
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
        return res.text();
      };
    });
    after(async () => {
      await t?.stop();
    });

    it('counts a screened add and a query per RPC, the verdict, the events published, on one /metrics', async () => {
      const before = await scrape();
      const added = await t.admin.post<{ id: string }>('/memories/add', {
        content: 'Escalations go to oncall@example.com after two failed deploys.',
        agent_id: 'planner',
      });
      assert.equal(added.status, 200, added.text);
      const query = await t.admin.post('/memories/query', {
        query: 'who gets escalations',
        agent_id: 'planner',
      });
      assert.equal(query.status, 200, query.text);
      const after = await scrape();

      const delta = (series: string) => (valueOf(after, series) ?? 0) - (valueOf(before, series) ?? 0);
      assert.equal(delta(`grpc_server_handled_total{${INGEST},grpc_method="AddMemory",grpc_code="OK"}`), 1);
      assert.equal(delta(`grpc_server_started_total{${INGEST},grpc_method="AddMemory"}`), 1);
      assert.equal(delta(`grpc_server_handling_seconds_count{${INGEST},grpc_method="AddMemory"}`), 1);
      assert.equal(delta(`grpc_server_handled_total{${RETRIEVAL},grpc_method="Query",grpc_code="OK"}`), 1);
      // The internal hop to memory-store is a gRPC call too (in-process in embedded mode by default,
      // counted by the handler binding like a call over the wire).
      assert.ok(
        after.includes('grpc_service="engram.memory.v1.MemoryWriterService"'),
        'memory-store writer RPCs are counted',
      );
      // The email is PII, flagged by default: one verdict "flag", one stage-2 pii detection.
      assert.equal(delta('engram_screening_verdicts_total{action="flag"}'), 1);
      assert.equal(delta('engram_screening_detections_total{category="pii",stage="2",action="flag"}'), 1);
      // The gateway's own series, and the default process metrics, on the same registry.
      assert.equal(delta('http_requests_total{method="POST",route="/memories/add",status="200"}'), 1);
      assert.ok(valueOf(after, 'process_cpu_user_seconds_total') !== undefined);

      // MEMORY_CREATED leaves through the relay: published counted, the outbox sampled on scrape.
      let text = after;
      for (let i = 0; i < 100 && !((valueOf(text, 'engram_events_published_total') ?? 0) > 0); i++) {
        await new Promise((r) => setTimeout(r, 50));
        text = await scrape();
      }
      assert.ok((valueOf(text, 'engram_events_published_total') ?? 0) > 0, 'events published');
      assert.ok(valueOf(text, 'engram_outbox_pending_events') !== undefined, 'outbox depth sampled');
      assert.ok((valueOf(text, 'engram_outbox_oldest_event_age_seconds') ?? -1) >= 0, 'outbox age sampled');
      assert.match(text, /# TYPE engram_events_publish_failures_total counter/);

      const max = valueOf(text, 'engram_db_pool_max_connections{pool="primary"}');
      assert.equal(max, engine === 'pglite' ? 1 : 4);
      assert.ok(valueOf(text, 'engram_db_pool_connections{pool="primary",state="used"}') !== undefined);
      assert.ok(valueOf(text, 'engram_db_pool_connections{pool="primary",state="free"}') !== undefined);
      assert.equal(valueOf(text, 'engram_db_pool_pending_acquires{pool="primary"}'), 0);
    });

    it('a write refused by screening counts reject under its category, and the RPC under its code', async () => {
      const before = await scrape();
      const res = await t.admin.post('/memories/add', {
        content: `the deploy token is ${GITHUB_TOKEN}`,
        agent_id: 'smuggler',
      });
      assert.equal(res.status, 422, res.text);
      const after = await scrape();
      const delta = (series: string) => (valueOf(after, series) ?? 0) - (valueOf(before, series) ?? 0);
      assert.equal(delta('engram_screening_verdicts_total{action="reject"}'), 1);
      assert.equal(
        delta('engram_screening_detections_total{category="secrets",stage="2",action="reject"}'),
        1,
      );
      assert.equal(delta('engram_screening_verdicts_total{action="allow"}'), 0);
      assert.equal(delta(`grpc_server_handled_total{${INGEST},grpc_method="AddMemory",grpc_code="OK"}`), 0);
      const refused = after
        .split('\n')
        .filter((l) => l.startsWith(`grpc_server_handled_total{${INGEST},grpc_method="AddMemory"`))
        .filter((l) => !l.includes('grpc_code="OK"'));
      assert.equal(refused.length, 1, 'one non-OK code for the refused write');
    });

    it('counts an integrity failure on read by route and status', async () => {
      const added = await t.admin.post<{ id: string }>('/memories/add', {
        content: 'The staging database rotates its credentials every Friday.',
        agent_id: 'reader',
      });
      assert.equal(added.status, 200, added.text);
      await t.engram.db.knex('memories').where({ id: added.body.id }).update({ content: 'tampered' });
      const before =
        valueOf(await scrape(), 'engram_integrity_failures_total{route="get",status="invalid"}') ?? 0;
      const got = await t.admin.get(`/memories/${added.body.id}?agent_id=reader`);
      assert.equal(got.status, 404, got.text);
      const after = valueOf(await scrape(), 'engram_integrity_failures_total{route="get",status="invalid"}');
      assert.equal(after, before + 1);
    });

    it('counts requests refused by the rate limiter by the exhausted budget', async () => {
      let refused = 0;
      for (let i = 0; i < AGENT_LIMIT * 2 + 1 && refused === 0; i++) {
        const res = await t.admin.post('/memories/query', { query: 'anything', agent_id: 'noisy' });
        if (res.status === 429) refused += 1;
      }
      assert.equal(refused, 1);
      assert.ok((valueOf(await scrape(), 'engram_rate_limited_requests_total{scope="agent"}') ?? 0) >= 1);
    });
  });
}
