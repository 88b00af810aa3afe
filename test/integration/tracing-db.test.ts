import assert from 'node:assert/strict';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { openDatabase, type Database } from '@engram/db';
import { startTracing, type StopTracing } from '@engram/telemetry';
import { ENGINES, testServerUrl } from '@engram/testing';

const SECRET = 'the content nobody may read in a trace';

for (const engine of ENGINES) {
  describe(`tracing: database spans (${engine})`, function () {
    this.timeout(30_000);
    const exporter = new InMemorySpanExporter();
    let stopTracing: StopTracing | undefined;
    let db: Database | undefined;

    before(async () => {
      stopTracing = await startTracing({ serviceName: 'db-test', exporter });
      db = await openDatabase(
        engine === 'postgres' ? { url: testServerUrl(), poolMax: 2 } : { dataDir: 'memory://' },
      );
    });
    after(async () => {
      await db?.close();
      await stopTracing?.();
    });
    beforeEach(() => exporter.reset());

    it('makes a client span per query inside a trace (transactions included), none outside', async () => {
      const knex = db!.knex;
      await knex.raw('select 1'); // outside any trace
      const tracer = trace.getTracer('test');
      await tracer.startActiveSpan('request', async (root) => {
        await knex.raw('select ?::text as v', [SECRET]);
        await assert.rejects(
          knex.transaction(async (trx) => {
            await trx.raw('create temp table traced (id int primary key, body text) on commit drop');
            await trx('traced').insert({ id: 1, body: SECRET });
            await trx('traced').insert({ id: 1, body: SECRET }); // duplicate key
          }),
        );
        root.end();
      });
      const spans = exporter.getFinishedSpans();
      const root = spans.find((s) => s.name === 'request')!;
      const queries = spans.filter((s) => s !== root);
      assert.deepEqual(
        queries.map((s) => s.name),
        ['SELECT', 'CREATE', 'INSERT', 'INSERT'],
      );
      for (const s of queries) {
        assert.equal(s.kind, SpanKind.CLIENT);
        assert.equal(s.parentSpanContext?.spanId, root.spanContext().spanId);
        assert.equal(s.attributes['db.system.name'], 'postgresql');
        assert.equal(s.attributes['db.operation.name'], s.name);
      }
      const failed = queries[3]!;
      assert.equal(failed.status.code, SpanStatusCode.ERROR);
      assert.equal(failed.attributes['error.type'], '23505');
      const exported = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events, s.status]));
      assert.ok(!exported.includes(SECRET), 'no bound value in any span');
    });
  });
}
