import assert from 'node:assert/strict';
import { GatewayError, validationFailed } from '@engram/gateway';
import { EngramClient, EngramError, type EngramClientOptions } from '@engram/client';
import {
  dropConnection,
  gatewayError,
  GatewayDouble,
  hang,
  json,
  rateLimited,
  unavailable,
} from './gateway-double.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const WRITE_RESULT = {
  id: 'm1',
  deduplicated: false,
  scope: 'agent-private',
  content_flags: [],
  trust_level: 'internal',
  memory_type: 'standard',
  namespace: 'default',
};

/** The EngramError a promise rejects with (fails the test when it resolves or throws anything else). */
async function failure(promise: Promise<unknown>): Promise<EngramError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof EngramError, `expected an EngramError, got ${String(err)}`);
    return err;
  }
  assert.fail('the call succeeded');
}

describe('EngramClient against a gateway double (real HTTP on port 0)', function () {
  this.timeout(15_000);
  let gw: GatewayDouble;
  const client = (options: Partial<EngramClientOptions> = {}) =>
    new EngramClient({
      baseUrl: gw.url,
      apiKey: 'egk_test_key',
      retry: { baseDelayMs: 1, maxDelayMs: 5_000 },
      ...options,
    });

  before(async () => {
    gw = await GatewayDouble.start();
  });
  afterEach(() => gw.reset());
  after(() => gw.close());

  describe('requests', () => {
    it('a write: path fields percent-encoded into the path, the rest as JSON, the key, one Idempotency-Key', async () => {
      gw.answer(json({ id: 'a/b c', scope: 'global' }));
      const answer = await client().relabelMemory({ id: 'a/b c', agent_id: 'planner', scope: 'global' });
      assert.deepEqual(answer, { id: 'a/b c', scope: 'global' });
      const [req] = gw.received;
      assert.equal(req!.method, 'PATCH');
      assert.equal(req!.url, '/memories/a%2Fb%20c');
      assert.deepEqual(JSON.parse(req!.body), { agent_id: 'planner', scope: 'global' });
      assert.equal(req!.headers.authorization, 'Bearer egk_test_key');
      assert.equal(req!.headers['content-type'], 'application/json');
      assert.match(req!.headers['idempotency-key'] as string, UUID);
      assert.match(req!.headers['user-agent'] as string, /^engram-client\/\d+\.\d+\.\d+$/);
    });

    it('a read: GET fields in the query string, no body and no Idempotency-Key', async () => {
      gw.answer(json({ memories: [], next_cursor: '' }), json({ events: [], next_cursor: '' }));
      await client().getSessionTimeline({ session_id: 's 1', agent_id: 'planner', namespace: 'ops' });
      await client().listAuditEvents({ event_type: 'SECURITY_REJECTED', limit: 5 });
      const [timeline, audit] = gw.received;
      assert.equal(timeline!.method, 'GET');
      assert.equal(timeline!.url, '/memories/typed/episodic/session/s%201?agent_id=planner&namespace=ops');
      assert.equal(timeline!.body, '');
      assert.equal(timeline!.headers['idempotency-key'], undefined);
      assert.equal(timeline!.headers['content-type'], undefined);
      assert.equal(audit!.url, '/security/audit?event_type=SECURITY_REJECTED&limit=5');
    });

    it('a POST the proto declares free of side effects (query) carries no Idempotency-Key', async () => {
      gw.answer(json({ memories: [], next_cursor: '' }));
      await client().query({ query: 'E4711', agent_id: 'planner', top_k: 3 });
      assert.equal(gw.received[0]!.url, '/memories/query');
      assert.deepEqual(JSON.parse(gw.received[0]!.body), { query: 'E4711', agent_id: 'planner', top_k: 3 });
      assert.equal(gw.received[0]!.headers['idempotency-key'], undefined);
    });

    it('a DELETE is a write: query string for its fields, and an Idempotency-Key', async () => {
      gw.answer(json({ id: 'm1', deleted: true }));
      assert.deepEqual(await client().deleteMemory({ id: 'm1', agent_id: 'planner' }), {
        id: 'm1',
        deleted: true,
      });
      assert.equal(gw.received[0]!.method, 'DELETE');
      assert.equal(gw.received[0]!.url, '/memories/m1?agent_id=planner');
      assert.match(gw.received[0]!.headers['idempotency-key'] as string, UUID);
    });

    it("the caller's Idempotency-Key and request id are sent as given", async () => {
      gw.answer(json(WRITE_RESULT));
      await client().addMemory(
        { content: 'x', agent_id: 'planner' },
        { idempotencyKey: 'import-2024-01-01', requestId: 'trace-42' },
      );
      assert.equal(gw.received[0]!.headers['idempotency-key'], 'import-2024-01-01');
      assert.equal(gw.received[0]!.headers['x-request-id'], 'trace-42');
    });

    it('a missing path parameter is refused before anything is sent', async () => {
      // @ts-expect-error id is required by the type as well
      const err = await failure(client().getMemory({ agent_id: 'planner' }));
      assert.equal(err.code, 'INVALID_ARGUMENT');
      assert.equal(err.status, 0);
      assert.equal(err.reason, 'VALIDATION_FAILED');
      assert.deepEqual(err.fieldViolations, [
        { field: 'id', description: 'is required', reason: 'REQUIRED' },
      ]);
      assert.equal(err.attempts, 0);
      assert.equal(gw.received.length, 0);
    });

    it('a base URL path prefix is kept; a bad base URL or an empty key is a TypeError', async () => {
      gw.answer(json({ keys: [], next_cursor: '' }));
      await client({ baseUrl: `${gw.url}/engram/` }).listKeys();
      assert.equal(gw.received[0]!.url, '/engram/admin/keys');
      assert.throws(() => new EngramClient({ baseUrl: 'localhost:8080', apiKey: 'k' }), TypeError);
      assert.throws(() => new EngramClient({ baseUrl: 'ftp://x', apiKey: 'k' }), TypeError);
      assert.throws(() => new EngramClient({ baseUrl: gw.url, apiKey: '' }), TypeError);
    });
  });

  describe('errors', () => {
    it("the gateway's error body becomes an EngramError with every field, and a 400 is not retried", async () => {
      gw.always(gatewayError(validationFailed('content', 'is required')));
      const err = await failure(client().addMemory({ content: '', agent_id: 'planner' }));
      assert.ok(err instanceof Error);
      assert.equal(err.name, 'EngramError');
      assert.equal(err.code, 'INVALID_ARGUMENT');
      assert.equal(err.status, 400);
      assert.equal(err.reason, 'VALIDATION_FAILED');
      assert.equal(err.message, 'content: is required');
      assert.deepEqual(err.fieldViolations, [
        { field: 'content', description: 'is required', reason: 'INVALID_VALUE' },
      ]);
      assert.equal(err.requestId, 'req-1');
      assert.equal(err.retryAfterSeconds, undefined);
      assert.deepEqual(
        err.details.map((d) => d['@type']),
        ['type.googleapis.com/google.rpc.ErrorInfo', 'type.googleapis.com/google.rpc.BadRequest'],
      );
      assert.equal(err.attempts, 1);
      assert.equal(gw.received.length, 1);
    });

    it('a content-policy rejection carries its detections', async () => {
      const detection = { category: 'secrets', type: 'api_key', action: 'reject', stage: 2 };
      gw.always(
        gatewayError(
          new GatewayError(422, 'FAILED_PRECONDITION', 'SECURITY_REJECTED', 'content rejected by policy', {
            detections: [detection],
          }),
        ),
      );
      const err = await failure(client().addMemory({ content: 'sk-...', agent_id: 'planner' }));
      assert.equal(err.status, 422);
      assert.equal(err.reason, 'SECURITY_REJECTED');
      assert.deepEqual(err.detections, [detection]);
    });

    for (const [status, code, reason] of [
      [401, 'UNAUTHENTICATED', 'UNAUTHENTICATED'],
      [403, 'PERMISSION_DENIED', 'AGENT_MISMATCH'],
      [404, 'NOT_FOUND', 'NOT_FOUND'],
      [409, 'ALREADY_EXISTS', 'ALREADY_EXISTS'],
      [501, 'UNIMPLEMENTED', 'NOT_IMPLEMENTED'],
    ] as const) {
      it(`a ${status} (${reason}) is not retried`, async () => {
        gw.always(gatewayError(new GatewayError(status, code, reason, 'no')));
        const err = await failure(client().getMemory({ id: 'm1' }));
        assert.deepEqual([err.status, err.code, err.reason, err.attempts], [status, code, reason, 1]);
        assert.equal(gw.received.length, 1);
      });
    }

    it("an answer that is not the gateway's (a proxy's page, a body that is not JSON) is INVALID_RESPONSE", async () => {
      gw.answer(
        (res) => {
          res.writeHead(502, { 'content-type': 'text/html' });
          res.end('<html>secret internal hostname</html>');
        },
        (res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"id": ');
        },
      );
      const proxy = await failure(client().getMemory({ id: 'm1' }));
      assert.deepEqual([proxy.status, proxy.code, proxy.reason], [502, 'UNAVAILABLE', 'INVALID_RESPONSE']);
      assert.doesNotMatch(proxy.message, /secret/);
      const broken = await failure(client().getMemory({ id: 'm1' }));
      assert.deepEqual([broken.status, broken.reason], [200, 'INVALID_RESPONSE']);
      assert.equal(gw.received.length, 2);
    });
  });

  describe('retries', () => {
    it('503 then 429 then 200: the answer, with the same Idempotency-Key on all three attempts', async () => {
      gw.answer(unavailable(), rateLimited('0'), json(WRITE_RESULT));
      const result = await client().addMemory({ content: 'x', agent_id: 'planner' });
      assert.equal(result.id, 'm1');
      assert.equal(gw.received.length, 3);
      const keys = new Set(gw.received.map((r) => r.headers['idempotency-key']));
      assert.equal(keys.size, 1);
      assert.match([...keys][0] as string, UUID);
      assert.equal(new Set(gw.received.map((r) => r.body)).size, 1);
    });

    it('two calls have two Idempotency-Keys', async () => {
      gw.always(json(WRITE_RESULT));
      await client().addMemory({ content: 'x', agent_id: 'planner' });
      await client().addMemory({ content: 'x', agent_id: 'planner' });
      assert.notEqual(gw.received[0]!.headers['idempotency-key'], gw.received[1]!.headers['idempotency-key']);
    });

    it('never comes back sooner than Retry-After (seconds)', async () => {
      gw.answer(rateLimited('1'), json(WRITE_RESULT));
      await client().addMemory({ content: 'x', agent_id: 'planner' });
      const gap = gw.received[1]!.at - gw.received[0]!.at;
      assert.ok(gap >= 990, `retried after ${gap} ms`);
      assert.ok(gap < 3_000, `retried after ${gap} ms`);
    });

    it('never comes back sooner than Retry-After (an HTTP date)', async () => {
      const at = new Date(Math.ceil((Date.now() + 800) / 1000) * 1000);
      gw.answer(unavailable(at.toUTCString()), json(WRITE_RESULT));
      await client().addMemory({ content: 'x', agent_id: 'planner' });
      assert.equal(gw.received.length, 2);
      assert.ok(
        gw.received[1]!.at >= at.getTime() - 10,
        `retried ${at.getTime() - gw.received[1]!.at} ms early`,
      );
    });

    it('a Retry-After longer than maxDelayMs ends the call at once, with retryAfterSeconds', async () => {
      gw.always(rateLimited('120'));
      const started = Date.now();
      const err = await failure(client().addMemory({ content: 'x', agent_id: 'planner' }));
      assert.ok(Date.now() - started < 1_000);
      assert.deepEqual([err.status, err.code, err.reason], [429, 'RESOURCE_EXHAUSTED', 'RATE_LIMITED']);
      assert.equal(err.retryAfterSeconds, 120);
      assert.equal(err.attempts, 1);
      assert.equal(gw.received.length, 1);
    });

    it('gives up after maxAttempts with the last answer; retry: false is one attempt', async () => {
      gw.always(unavailable());
      const err = await failure(
        client({ retry: { maxAttempts: 3, baseDelayMs: 1 } }).getMemory({ id: 'm1' }),
      );
      assert.deepEqual([err.status, err.reason, err.attempts], [503, 'DEPENDENCY_UNAVAILABLE', 3]);
      assert.equal(err.requestId, 'req-3');
      assert.equal(gw.received.length, 3);
      gw.received.length = 0;
      const once = await failure(client().getMemory({ id: 'm1' }, { retry: false }));
      assert.equal(once.attempts, 1);
      assert.equal(gw.received.length, 1);
    });

    it('a dropped connection is retried with the same key; when it keeps dropping: UNAVAILABLE, status 0', async () => {
      gw.answer(dropConnection, json(WRITE_RESULT));
      assert.equal((await client().addMemory({ content: 'x', agent_id: 'planner' })).id, 'm1');
      assert.equal(gw.received.length, 2);
      assert.equal(gw.received[0]!.headers['idempotency-key'], gw.received[1]!.headers['idempotency-key']);

      gw.reset();
      gw.always(dropConnection);
      const err = await failure(
        client({ retry: { maxAttempts: 2, baseDelayMs: 1 } }).getMemory({ id: 'm1' }),
      );
      assert.deepEqual(
        [err.code, err.status, err.reason, err.attempts],
        ['UNAVAILABLE', 0, 'NETWORK_ERROR', 2],
      );
      assert.ok(err.cause instanceof Error);
    });

    it('createKey carries an Idempotency-Key too: a lost call is resent with the same key, so one key is made', async () => {
      gw.answer(dropConnection, json({ key_id: 'k1', api_key: 'egk_x', key: {} }));
      assert.equal((await client().createKey({ name: 'planner', trust_level: 'internal' })).key_id, 'k1');
      assert.equal(gw.received.length, 2);
      const [first, second] = gw.received.map((r) => r.headers['idempotency-key']);
      assert.ok(typeof first === 'string' && first.length > 0);
      assert.equal(second, first);
    });

    it('409 IDEMPOTENCY_KEY_IN_PROGRESS (the first attempt is still being served) is retried after its Retry-After, same key', async () => {
      gw.answer(
        gatewayError(
          new GatewayError(409, 'ABORTED', 'IDEMPOTENCY_KEY_IN_PROGRESS', 'still in progress', {
            headers: { 'retry-after': '1' },
          }),
        ),
        json(WRITE_RESULT),
      );
      assert.equal((await client().addMemory({ content: 'x', agent_id: 'planner' })).id, 'm1');
      assert.equal(gw.received.length, 2);
      assert.equal(gw.received[0]!.headers['idempotency-key'], gw.received[1]!.headers['idempotency-key']);
      assert.ok(gw.received[1]!.at - gw.received[0]!.at >= 990);
    });

    it('a refused connection is NETWORK_ERROR after the retries', async () => {
      const closed = await GatewayDouble.start();
      const url = closed.url;
      await closed.close();
      const err = await failure(
        client({ baseUrl: url, retry: { maxAttempts: 2, baseDelayMs: 1 } }).listKeys(),
      );
      assert.deepEqual(
        [err.code, err.status, err.reason, err.attempts],
        ['UNAVAILABLE', 0, 'NETWORK_ERROR', 2],
      );
      assert.match(err.message, /ECONNREFUSED/);
    });
  });

  describe('timeouts and cancellation', () => {
    it('timeoutMs ends a call that gets no answer: DEADLINE_EXCEEDED, status 0', async () => {
      gw.always(hang);
      const started = Date.now();
      const err = await failure(client({ timeoutMs: 300 }).getMemory({ id: 'm1' }));
      const took = Date.now() - started;
      assert.deepEqual([err.code, err.status, err.reason], ['DEADLINE_EXCEEDED', 0, 'TIMEOUT']);
      assert.ok(took >= 290 && took < 2_000, `took ${took} ms`);
    });

    it('timeoutMs covers the retries: a wait that would outlast it is not started', async () => {
      gw.always(unavailable('2'));
      const started = Date.now();
      const err = await failure(client().getMemory({ id: 'm1' }, { timeoutMs: 1_000 }));
      assert.ok(Date.now() - started < 900);
      assert.deepEqual(
        [err.status, err.reason, err.retryAfterSeconds, err.attempts],
        [503, 'DEPENDENCY_UNAVAILABLE', 2, 1],
      );
      assert.equal(gw.received.length, 1);
    });

    it('an abort during the wait before a retry ends the call at once and sends nothing more', async () => {
      gw.always(unavailable('1'));
      const controller = new AbortController();
      const reason = new Error('user closed the tab');
      setTimeout(() => controller.abort(reason), 100);
      const started = Date.now();
      const err = await failure(client().getMemory({ id: 'm1' }, { signal: controller.signal }));
      assert.ok(Date.now() - started < 1_000);
      assert.deepEqual([err.code, err.status, err.reason, err.attempts], ['CANCELLED', 0, 'ABORTED', 1]);
      assert.equal(err.cause, reason);
      await new Promise((r) => setTimeout(r, 1_300));
      assert.equal(gw.received.length, 1);
    });

    it('an abort while the request is in flight, or before it starts, is CANCELLED', async () => {
      gw.always(hang);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const inFlight = await failure(client().getMemory({ id: 'm1' }, { signal: controller.signal }));
      assert.deepEqual([inFlight.code, inFlight.reason, inFlight.attempts], ['CANCELLED', 'ABORTED', 1]);
      const before = await failure(client().getMemory({ id: 'm1' }, { signal: AbortSignal.abort() }));
      assert.deepEqual([before.code, before.attempts], ['CANCELLED', 0]);
      assert.equal(gw.received.length, 1);
    });
  });
});
