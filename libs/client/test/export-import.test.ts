import assert from 'node:assert/strict';
import { GatewayError, upstreamUnavailable } from '@engram/gateway';
import { EngramClient, EngramError, type ImportProgress, type MemoryInput } from '@engram/client';
import { errorLine, GatewayDouble, gatewayError, json, unavailable, type Answer } from './gateway-double.ts';

/** A deferred the test resolves to let the double go on. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

function ndjsonHead(res: Parameters<Answer>[0]) {
  res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
}

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

describe('exportMemories and importMemories against a gateway double', function () {
  this.timeout(15_000);
  let gw: GatewayDouble;
  const client = () =>
    new EngramClient({
      baseUrl: gw.url,
      apiKey: 'egk_test_key',
      retry: { baseDelayMs: 1, maxDelayMs: 5_000 },
    });

  before(async () => {
    gw = await GatewayDouble.start();
  });
  afterEach(() => gw.reset());
  after(() => gw.close());

  describe('exportMemories', () => {
    it('yields each row as it arrives: lines and UTF-8 characters split across chunks, a last line without newline', async () => {
      const more = gate();
      const first = Buffer.from('{"id":"m1","content":"café ☕"}\n', 'utf8');
      const cut = first.indexOf(Buffer.from('☕', 'utf8')) + 1; // inside the 3-byte character
      gw.answer(async (res) => {
        ndjsonHead(res);
        res.write(first.subarray(0, 5));
        await new Promise((r) => setTimeout(r, 20));
        res.write(first.subarray(5, cut));
        await new Promise((r) => setTimeout(r, 20));
        res.write(first.subarray(cut));
        await more.opened;
        res.write('\n{"id":"m2","content":"b"}\r\n\n{"id":');
        await new Promise((r) => setTimeout(r, 20));
        res.end('"m3","content":"c"}');
      });
      const rows: { id: string; content: string }[] = [];
      for await (const row of client().exportMemories({ agent_id: 'planner', memory_types: ['semantic'] })) {
        rows.push(row);
        // The rest is only sent once the first row is in hand: a client that waited for the
        // whole body would hang here.
        if (rows.length === 1) more.open();
      }
      assert.deepEqual(rows, [
        { id: 'm1', content: 'café ☕' },
        { id: 'm2', content: 'b' },
        { id: 'm3', content: 'c' },
      ]);
      const [req] = gw.received;
      assert.equal(req!.url, '/memories/export');
      assert.equal(req!.headers.accept, 'application/x-ndjson');
      assert.equal(req!.headers['idempotency-key'], undefined, 'an export changes nothing');
      assert.deepEqual(JSON.parse(req!.body), { agent_id: 'planner', memory_types: ['semantic'] });
    });

    it('an error line after rows ends the iteration with its EngramError; nothing is replayed', async () => {
      gw.answer((res) => {
        ndjsonHead(res);
        res.end(`{"id":"m1"}\n{"id":"m2"}\n${errorLine(upstreamUnavailable())}`);
      });
      const rows: unknown[] = [];
      let caught: unknown;
      try {
        for await (const row of client().exportMemories()) rows.push(row);
      } catch (err) {
        caught = err;
      }
      assert.equal(rows.length, 2);
      assert.ok(caught instanceof EngramError);
      assert.deepEqual(
        [caught.code, caught.status, caught.reason, caught.requestId],
        ['UNAVAILABLE', 503, 'UPSTREAM_UNAVAILABLE', 'req-1'],
      );
      assert.equal(gw.received.length, 1);
    });

    it('an error answer before the first row is retried like any call, then rows flow', async () => {
      gw.answer(unavailable(), (res) => {
        ndjsonHead(res);
        res.end('{"id":"m1"}\n');
      });
      assert.deepEqual(await collect(client().exportMemories()), [{ id: 'm1' }]);
      assert.equal(gw.received.length, 2);
    });

    it('a 403 before any row rejects the first next() with the EngramError', async () => {
      gw.answer(gatewayError(new GatewayError(403, 'PERMISSION_DENIED', 'AGENT_MISMATCH', 'not your agent')));
      await assert.rejects(collect(client().exportMemories({ agent_id: 'other' })), (err) => {
        assert.ok(err instanceof EngramError);
        assert.deepEqual([err.status, err.reason], [403, 'AGENT_MISMATCH']);
        return true;
      });
    });

    it('a body that is not UTF-8 JSON lines is INVALID_RESPONSE', async () => {
      gw.answer((res) => {
        ndjsonHead(res);
        res.end(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
      });
      await assert.rejects(collect(client().exportMemories()), (err) => {
        assert.ok(err instanceof EngramError);
        assert.equal(err.reason, 'INVALID_RESPONSE');
        return true;
      });
    });

    it('leaving the loop early closes the connection', async () => {
      const closed = gate();
      gw.answer((res) => {
        ndjsonHead(res);
        res.write('{"id":"m1"}\n');
        res.on('close', closed.open);
      });
      for await (const row of client().exportMemories()) {
        assert.deepEqual(row, { id: 'm1' });
        break;
      }
      const outcome = await Promise.race([
        closed.opened.then(() => 'closed'),
        new Promise((r) => setTimeout(() => r('still open'), 2_000)),
      ]);
      assert.equal(outcome, 'closed');
    });

    it('an abort while rows are read ends the iteration with CANCELLED', async () => {
      gw.answer((res) => {
        ndjsonHead(res);
        res.write('{"id":"m1"}\n');
      });
      const controller = new AbortController();
      const rows: unknown[] = [];
      await assert.rejects(
        (async () => {
          for await (const row of client().exportMemories({}, { signal: controller.signal })) {
            rows.push(row);
            controller.abort();
          }
        })(),
        (err) => err instanceof EngramError && err.code === 'CANCELLED',
      );
      assert.equal(rows.length, 1);
    });

    it('timeoutMs covers the wait for the stream to start, not the reading of it', async () => {
      gw.answer(async (res) => {
        ndjsonHead(res);
        res.write('{"id":"m1"}\n');
        await new Promise((r) => setTimeout(r, 600));
        res.end('{"id":"m2"}\n');
      });
      const rows = await collect(client().exportMemories({}, { timeoutMs: 300 }));
      assert.equal(rows.length, 2);
    });
  });

  describe('importMemories', () => {
    /** Answers an import batch: rows whose content is "bad" fail, the others get an id. */
    const importAnswer: Answer = (res, req) => {
      const { memories } = JSON.parse(req.body) as { memories: { content: string }[] };
      return json({
        results: memories.map((m, index) =>
          m.content === 'bad'
            ? {
                index,
                deduplicated: false,
                content_flags: [],
                error: {
                  code: 'FAILED_PRECONDITION',
                  status: 422,
                  reason: 'SECURITY_REJECTED',
                  message: 'rejected',
                  detections: [],
                  field_violations: [],
                },
              }
            : { index, id: `new-${m.content}`, deduplicated: false, content_flags: [] },
        ),
      })(res, req);
    };

    async function* rows(n: number): AsyncGenerator<MemoryInput> {
      for (let i = 0; i < n; i++) {
        await Promise.resolve();
        yield { content: i % 60 === 7 ? 'bad' : `row-${i}`, agent_id: 'planner', memory_type: 'semantic' };
      }
    }

    it('sends batches of batchSize one after the other, reports progress, and gives one result per row in input order', async () => {
      gw.answer(unavailable(), importAnswer).always(importAnswer);
      const progress: ImportProgress[] = [];
      const summary = await client().importMemories(rows(250), {
        batchSize: 100,
        onProgress: (p) => void progress.push(p),
      });
      const bad = [7, 67, 127, 187, 247];
      assert.deepEqual(progress, [
        { sent: 100, imported: 98, failed: 2, batches: 1 },
        { sent: 200, imported: 196, failed: 4, batches: 2 },
        { sent: 250, imported: 245, failed: 5, batches: 3 },
      ]);
      assert.deepEqual(
        { sent: summary.sent, imported: summary.imported, failed: summary.failed, batches: summary.batches },
        progress[2],
      );
      assert.deepEqual(
        summary.results.map((r) => r.index),
        Array.from({ length: 250 }, (_, i) => i),
      );
      assert.deepEqual(
        summary.results.filter((r) => r.error !== undefined).map((r) => r.index),
        bad,
      );
      assert.equal(summary.results[249]!.id, 'new-row-249');
      assert.equal(summary.results[247]!.error?.reason, 'SECURITY_REJECTED');

      // The first batch was answered 503 once: four requests, its retry under the same key.
      assert.equal(gw.received.length, 4);
      assert.ok(gw.received.every((r) => r.method === 'POST' && r.url === '/memories/import'));
      const sizes = gw.received.map((r) => (JSON.parse(r.body) as { memories: unknown[] }).memories.length);
      assert.deepEqual(sizes, [100, 100, 100, 50]);
      const keys = gw.received.map((r) => r.headers['idempotency-key']);
      assert.equal(keys[0], keys[1]);
      assert.equal(new Set(keys).size, 3);
    });

    it("with the caller's idempotencyKey K, batch n is sent under K-n (a repeated import stores nothing twice)", async () => {
      gw.always(importAnswer);
      const summary = await client().importMemories([{ content: 'a' }, { content: 'b' }, { content: 'c' }], {
        batchSize: 2,
        idempotencyKey: 'nightly-7',
      });
      assert.equal(summary.imported, 3);
      assert.deepEqual(
        gw.received.map((r) => r.headers['idempotency-key']),
        ['nightly-7-1', 'nightly-7-2'],
      );
    });

    it('no rows: no request', async () => {
      const summary = await client().importMemories([]);
      assert.deepEqual(summary, { sent: 0, imported: 0, failed: 0, batches: 0, results: [] });
      assert.equal(gw.received.length, 0);
    });

    it('a batchSize above the route limit of 100 is refused before anything is sent', async () => {
      for (const batchSize of [0, 101, 2.5]) {
        await assert.rejects(client().importMemories([{ content: 'a' }], { batchSize }), (err) => {
          assert.ok(err instanceof EngramError);
          assert.deepEqual([err.code, err.status, err.reason], ['INVALID_ARGUMENT', 0, 'VALIDATION_FAILED']);
          assert.equal(err.fieldViolations[0]?.field, 'batchSize');
          return true;
        });
      }
      assert.equal(gw.received.length, 0);
    });

    it('a batch that fails for good rejects with its EngramError after the earlier batches were reported', async () => {
      gw.answer(importAnswer).always(
        gatewayError(new GatewayError(401, 'UNAUTHENTICATED', 'UNAUTHENTICATED', 'key revoked')),
      );
      const progress: ImportProgress[] = [];
      await assert.rejects(
        client().importMemories(rows(5), { batchSize: 2, onProgress: (p) => void progress.push(p) }),
        (err) => err instanceof EngramError && err.status === 401,
      );
      assert.deepEqual(progress, [{ sent: 2, imported: 2, failed: 0, batches: 1 }]);
    });
  });
});
