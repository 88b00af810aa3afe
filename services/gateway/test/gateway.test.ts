import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { startFixtureServer, type FixtureServer } from './fixtures/fixture-server.ts';
import { allAt, deadAddress, startGateway, type RunningGateway } from './fixtures/harness.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface ErrorBody {
  error: {
    code: string;
    status: number;
    reason: string;
    message: string;
    details: Record<string, unknown>[];
    detections?: Record<string, unknown>[];
  };
}

// Response bodies are read as loosely typed JSON; the assertions check their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function json(res: Response): Promise<any> {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return res.json();
}

/** Asserts the one error body shape and returns it. */
async function errorOf(
  res: Response,
  status: number,
  code: string,
  reason?: string,
): Promise<ErrorBody['error']> {
  const body = (await json(res)) as ErrorBody;
  assert.equal(res.status, status, JSON.stringify(body));
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(body.error.code, code);
  assert.equal(body.error.status, status);
  if (reason !== undefined) assert.equal(body.error.reason, reason);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(Array.isArray(body.error.details));
  return body.error;
}

describe('gateway (real gRPC fixture server, real HTTP)', () => {
  let fixture: FixtureServer;
  let gw: RunningGateway;
  let deadAce: string;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  before(async () => {
    fixture = await startFixtureServer();
    deadAce = await deadAddress();
    gw = await startGateway({
      upstreams: { ...allAt(fixture.address), 'engram.ace.v1.AceService': deadAce },
    });
  });
  after(async () => {
    await gw.stop();
    await fixture.stop();
  });

  describe('transcoding', () => {
    it('turns a JSON body into the request and the response into JSON with proto names', async () => {
      const res = await post('/admin/projects', { project_id: 'p1', name: 'Project One' });
      assert.equal(res.status, 200);
      assert.deepEqual(await json(res), {
        project_id: 'p1',
        name: 'Project One',
        created_at: '2026-01-01T00:00:00Z',
      });
    });

    it('emits implicit defaults (empty lists, false) and omits unset optional fields', async () => {
      const memory = await json(await fetch(`${gw.url}/memories/m1`));
      assert.equal(memory.is_deprecated, false);
      assert.deepEqual(memory.shared_with, []);
      assert.deepEqual(memory.content_flags, []);
      assert.equal(memory.agent_id, 'a1');
      assert.ok(!('session_id' in memory));
      const list = await json(await fetch(`${gw.url}/memories/typed/semantic/entity/e1`));
      assert.deepEqual(list, { memories: [], next_cursor: '' });
    });

    it('routes the literal timeline path before /memories/{id}, with decoded path and query values', async () => {
      const res = await fetch(`${gw.url}/memories/typed/episodic/session/s%201?agent_id=a2`);
      const body = await json(res);
      assert.equal(body.memories[0].session_id, 's 1');
      assert.equal(body.memories[0].agent_id, 'a2');
    });

    it('merges path variables into the body; the path wins', async () => {
      const res = await post('/memories/m7/deprecate', {
        id: 'other',
        reason: 'outdated',
        superseded_by: 'm8',
      });
      const body = await json(res);
      assert.equal(body.id, 'm7');
      assert.equal(body.deprecation_reason, 'outdated');
      assert.equal(body.superseded_by, 'm8');
      assert.equal(body.is_deprecated, true);
      const call = fixture.calls.findLast((c) => c.path === 'DeprecateMemory');
      assert.equal((call?.request as { id: string }).id, 'm7');
    });

    it('binds PATCH bodies and query parameters of GET and DELETE routes', async () => {
      const patched = await json(
        await fetch(`${gw.url}/memories/m1`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify({ scope: 'agent-shared', shared_with: ['b1', 'b2'] }),
        }),
      );
      assert.equal(patched.scope, 'agent-shared');
      assert.deepEqual(patched.shared_with, ['b1', 'b2']);
      assert.deepEqual(await json(await fetch(`${gw.url}/admin/keys?project_id=p9&cursor=c2`)), {
        keys: [],
        next_cursor: 'p9|c2',
      });
      const deleted = await json(await fetch(`${gw.url}/memories/m1?agent_id=owner`, { method: 'DELETE' }));
      assert.deepEqual(deleted, { id: 'm1', deleted: true });
      const revoked = await json(await fetch(`${gw.url}/admin/keys/k%2F1`, { method: 'DELETE' }));
      assert.equal(revoked.key_id, 'k/1');
    });

    it('forwards authorization, forwards or creates x-request-id, and marks the channel', async () => {
      const given = await fetch(`${gw.url}/memories/m1`, {
        headers: { authorization: 'Bearer egk_test', 'x-request-id': 'req-123' },
      });
      assert.equal(given.headers.get('x-request-id'), 'req-123');
      let call = fixture.calls.findLast((c) => c.path === 'GetMemory');
      assert.equal(call?.metadata.authorization, 'Bearer egk_test');
      assert.equal(call?.metadata['x-request-id'], 'req-123');
      assert.equal(call?.metadata['x-engram-channel'], 'rest');

      const fresh = await fetch(`${gw.url}/memories/m1`, {
        headers: { 'x-request-id': 'bad id with spaces' },
      });
      const id = fresh.headers.get('x-request-id') ?? '';
      assert.match(id, UUID);
      call = fixture.calls.findLast((c) => c.path === 'GetMemory');
      assert.equal(call?.metadata['x-request-id'], id);
      assert.equal(call?.metadata.authorization, undefined);

      const notFound = await fetch(`${gw.url}/nope`);
      assert.match(notFound.headers.get('x-request-id') ?? '', UUID);
    });
  });

  describe('errors: the one table and the one body', () => {
    const table: [string, number, string][] = [
      ['INVALID_ARGUMENT', 400, 'FIXTURE_INVALID_ARGUMENT'],
      ['FAILED_PRECONDITION', 409, 'FIXTURE_FAILED_PRECONDITION'],
      ['UNAUTHENTICATED', 401, 'FIXTURE_UNAUTHENTICATED'],
      ['PERMISSION_DENIED', 403, 'FIXTURE_PERMISSION_DENIED'],
      ['NOT_FOUND', 404, 'FIXTURE_NOT_FOUND'],
      ['ALREADY_EXISTS', 409, 'FIXTURE_ALREADY_EXISTS'],
      ['RESOURCE_EXHAUSTED', 429, 'FIXTURE_RESOURCE_EXHAUSTED'],
      ['UNIMPLEMENTED', 501, 'FIXTURE_UNIMPLEMENTED'],
      ['UNAVAILABLE', 503, 'FIXTURE_UNAVAILABLE'],
      ['DEADLINE_EXCEEDED', 504, 'FIXTURE_DEADLINE_EXCEEDED'],
      ['CANCELLED', 499, 'FIXTURE_CANCELLED'],
    ];
    for (const [code, http, reason] of table) {
      it(`${code} -> ${http} with the upstream's reason, message and details`, async () => {
        const err = await errorOf(await fetch(`${gw.url}/memories/err-${code}`), http, code, reason);
        assert.equal(err.message, `fixture says ${code} internal-detail-42`);
        assert.deepEqual(err.details, [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason,
            domain: 'engram.dev',
            metadata: { service: 'fixture' },
          },
        ]);
      });
    }

    it('uses a default reason per code when the upstream sent no ErrorInfo', async () => {
      const expected: [string, number, string][] = [
        ['INVALID_ARGUMENT', 400, 'VALIDATION_FAILED'],
        ['NOT_FOUND', 404, 'NOT_FOUND'],
        ['RESOURCE_EXHAUSTED', 429, 'RATE_LIMITED'],
        ['UNAVAILABLE', 503, 'UPSTREAM_UNAVAILABLE'],
        ['DEADLINE_EXCEEDED', 504, 'DEADLINE_EXCEEDED'],
      ];
      for (const [code, http, reason] of expected) {
        await errorOf(await fetch(`${gw.url}/memories/err-${code}-plain`), http, code, reason);
      }
      const nf = await errorOf(await fetch(`${gw.url}/memories/unknown-id`), 404, 'NOT_FOUND', 'NOT_FOUND');
      assert.equal(nf.message, 'memory not found');
    });

    it('never shows upstream text for INTERNAL, UNKNOWN and other 500s', async () => {
      for (const id of [
        'err-INTERNAL',
        'err-INTERNAL-plain',
        'err-DATA_LOSS',
        'err-ABORTED',
        'err-UNKNOWN',
        'err-THROW',
      ]) {
        const res = await fetch(`${gw.url}/memories/${id}`);
        const text = await res.clone().text();
        const err = await errorOf(res, 500, 'INTERNAL', 'INTERNAL');
        assert.equal(err.message, 'internal error', id);
        assert.ok(!text.includes('internal-detail') && !text.includes('hunter2'), `${id} leaked: ${text}`);
      }
      const plain503 = await fetch(`${gw.url}/memories/err-UNAVAILABLE-plain`);
      assert.ok(!(await plain503.text()).includes('internal-detail'));
    });

    it('INVALID_ARGUMENT carries BadRequest field violations and ErrorInfo', async () => {
      const err = await errorOf(
        await post('/admin/keys', { project_id: 'p1', name: 'k', trust_level: 'root' }),
        400,
        'INVALID_ARGUMENT',
        'VALIDATION_FAILED',
      );
      assert.equal(err.message, 'trust_level: must be one of untrusted, internal, privileged, system');
      assert.deepEqual(err.details, [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'VALIDATION_FAILED',
          domain: 'engram.dev',
          metadata: { service: 'fixture' },
        },
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          field_violations: [
            {
              field: 'trust_level',
              description: 'must be one of untrusted, internal, privileged, system',
              reason: 'INVALID_ENUM',
            },
          ],
        },
      ]);
      assert.equal(err.detections, undefined);
    });

    it('FAILED_PRECONDITION with reason SECURITY_REJECTED -> 422 with the detections', async () => {
      const err = await errorOf(
        await post('/memories/add', { content: 'key is AKIAIOSFODNN7EXAMPLE', agent_id: 'a1' }),
        422,
        'FAILED_PRECONDITION',
        'SECURITY_REJECTED',
      );
      assert.deepEqual(err.detections, [
        { category: 'secrets', type: 'api_key', action: 'reject', start: 9, end: 29, stage: 2 },
        { category: 'injection', type: 'system_override', action: 'flag', stage: 3 },
      ]);
      const typed = err.details.filter(
        (d) => d['@type'] === 'type.googleapis.com/engram.memory.v1.Detection',
      );
      assert.equal(typed.length, 2);
      assert.equal(typed[0]!.category, 'secrets');
    });

    it('RESOURCE_EXHAUSTED -> 429 with Retry-After from RetryInfo', async () => {
      const res = await post('/memories/query', { query: 'q', agent_id: 'a1' });
      assert.equal(res.headers.get('retry-after'), '2');
      const err = await errorOf(res, 429, 'RESOURCE_EXHAUSTED', 'RATE_LIMITED');
      assert.deepEqual(err.details[1], {
        '@type': 'type.googleapis.com/google.rpc.RetryInfo',
        retry_delay: '1.500s',
      });
      const plain = await fetch(`${gw.url}/memories/err-RESOURCE_EXHAUSTED-plain`);
      assert.equal(plain.headers.get('retry-after'), '1');
    });

    it('an unreachable upstream -> 503 UPSTREAM_UNAVAILABLE without internals', async () => {
      const res = await fetch(`${gw.url}/ace/run/r1`);
      const text = await res.clone().text();
      await errorOf(res, 503, 'UNAVAILABLE', 'UPSTREAM_UNAVAILABLE');
      assert.ok(!text.includes(deadAce) && !/ECONNREFUSED|connect/i.test(text), text);
    });

    it('an upstream that stays down is logged once, not once per 503', async () => {
      const before = gw.logs.length;
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => fetch(`${gw.url}/ace/run/r${i}`).then((r) => r.status)),
      );
      assert.deepEqual(new Set(answers), new Set([503]));
      const lines = gw.logs.slice(before).filter((l) => /"level":"(warn|error)"/.test(l));
      // One line opens the outage (or none, when an earlier request opened it already).
      assert.ok(lines.length <= 1, lines.join(''));
      assert.equal(
        gw.logs.filter((l) => l.includes('upstream unavailable') && l.includes('engram.ace.v1.AceService'))
          .length,
        1,
      );
    });
  });

  describe('a write whose connection failed', () => {
    const adds = (content: string) =>
      fixture.calls.filter(
        (c) => c.path === 'AddMemory' && (c.request as { content: string }).content === content,
      );

    it('is sent once more when it carries an idempotency key, and the client gets the answer', async () => {
      const content = 'drop-once keyed write';
      const res = await post('/memories/add', { content }, { 'idempotency-key': 'gw-retry-1' });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal((await json(res)).id, 'new-1');
      assert.deepEqual(
        adds(content).map((c) => c.metadata['idempotency-key']),
        ['gw-retry-1', 'gw-retry-1'],
      );
    });

    it('is not sent again without a key (the first may have run): 503, one call', async () => {
      const content = 'drop-once unkeyed write';
      await errorOf(await post('/memories/add', { content }), 503, 'UNAVAILABLE');
      assert.equal(adds(content).length, 1);
    });

    it('is not sent again when an Engram service answered UNAVAILABLE itself', async () => {
      const content = 'unavailable-rich write';
      const res = await post('/memories/add', { content }, { 'idempotency-key': 'gw-retry-2' });
      await errorOf(res, 503, 'UNAVAILABLE', 'DEPENDENCY_UNAVAILABLE');
      assert.equal(adds(content).length, 1);
    });

    // The 503s above marked the upstream down in the gateway's log; a success brings it back here.
    after(() => post('/memories/add', { content: 'after the dropped writes' }));
  });

  describe('a read whose connection failed after the answer had begun', () => {
    it('is sent once more (grpc-js no longer retries a call it has headers for), and the client gets the answer', async () => {
      const query = 'drop-after-headers read';
      const res = await post('/memories/query', { query });
      assert.equal(res.status, 200, await res.clone().text());
      assert.deepEqual((await json(res)).memories, []);
      const queries = fixture.calls.filter(
        (c) => c.path === 'Query' && (c.request as { query: string }).query === query,
      );
      assert.equal(queries.length, 2);
    });
  });

  describe('bad requests are 4xx, never 5xx', () => {
    it('unknown field -> 400 naming it', async () => {
      const err = await errorOf(
        await post('/admin/projects', { project_id: 'p', nmae: 'x' }),
        400,
        'INVALID_ARGUMENT',
        'VALIDATION_FAILED',
      );
      assert.match(err.message, /^nmae: unknown field/);
      const bad = err.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
      assert.deepEqual((bad?.field_violations as { field: string }[])[0]!.field, 'nmae');
    });

    it('wrong types -> 400 naming the field', async () => {
      const err = await errorOf(await post('/admin/projects', { project_id: 5 }), 400, 'INVALID_ARGUMENT');
      assert.match(err.message, /^project_id: expected string/);
    });

    it('malformed JSON and non-object bodies -> 400', async () => {
      await errorOf(
        await post('/admin/projects', '{"project_id":'),
        400,
        'INVALID_ARGUMENT',
        'VALIDATION_FAILED',
      );
      await errorOf(await post('/admin/projects', '[1,2]'), 400, 'INVALID_ARGUMENT', 'VALIDATION_FAILED');
    });

    it('a body over 8 MiB -> 413 (announced by content-length)', async () => {
      const body = `{"name":"${'x'.repeat(8 * 1024 * 1024)}"}`;
      await errorOf(await post('/admin/projects', body), 413, 'INVALID_ARGUMENT', 'PAYLOAD_TOO_LARGE');
      const exact = 'x'.repeat(8 * 1024 * 1024 + 1);
      await errorOf(await post('/admin/projects', exact), 413, 'INVALID_ARGUMENT', 'PAYLOAD_TOO_LARGE');
    });

    it('a chunked body over 8 MiB -> 413 (counted while reading)', async () => {
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 9; i++) controller.enqueue(chunk);
          controller.close();
        },
      });
      const res = await fetch(`${gw.url}/admin/projects`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      });
      await errorOf(res, 413, 'INVALID_ARGUMENT', 'PAYLOAD_TOO_LARGE');
    });

    it('a body of 8 MiB exactly is read', async () => {
      const pad = 8 * 1024 * 1024 - '{"name":"p"}'.length;
      const res = await post('/admin/projects', `${' '.repeat(pad)}{"name":"p"}`);
      assert.equal(res.status, 200);
    });

    it('a content-type other than JSON on a body route -> 415', async () => {
      const res = await fetch(`${gw.url}/admin/projects`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: '{"project_id":"p"}',
      });
      await errorOf(res, 415, 'INVALID_ARGUMENT', 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('a known path with the wrong method -> 405 with Allow', async () => {
      const res = await fetch(`${gw.url}/memories/m1`, { method: 'PUT' });
      assert.equal(res.headers.get('allow'), 'DELETE, GET, PATCH');
      await errorOf(res, 405, 'UNIMPLEMENTED', 'METHOD_NOT_ALLOWED');
      const health = await fetch(`${gw.url}/healthz`, { method: 'POST' });
      await errorOf(health, 405, 'UNIMPLEMENTED', 'METHOD_NOT_ALLOWED');
    });

    it('an unknown path -> 404 ROUTE_NOT_FOUND', async () => {
      await errorOf(await fetch(`${gw.url}/no/such/route`), 404, 'NOT_FOUND', 'ROUTE_NOT_FOUND');
      await errorOf(await post('/memories/m1/undeprecate', {}), 404, 'NOT_FOUND', 'ROUTE_NOT_FOUND');
    });

    it('unknown query parameters and malformed path encoding -> 400', async () => {
      const q = await errorOf(await fetch(`${gw.url}/admin/keys?projectid=p`), 400, 'INVALID_ARGUMENT');
      assert.match(q.message, /^projectid: unknown query parameter/);
      const p = await rawGet(gw.url, '/memories/%E0%A4%A');
      assert.equal(p.status, 400);
    });
    it('a client that hangs up mid-body is logged as 499 and calls nothing', async () => {
      const { hostname, port } = new URL(gw.url);
      const before = fixture.calls.length;
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => {
          socket.write(
            'POST /admin/projects HTTP/1.1\r\nhost: x\r\nx-request-id: hangup-1\r\n' +
              'content-type: application/json\r\ncontent-length: 1000\r\n\r\n{"project_id":',
          );
          setTimeout(() => socket.destroy(), 50);
        });
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
      await new Promise((r) => setTimeout(r, 50));
      const line = gw.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.request_id === 'hangup-1');
      assert.equal(line?.status, 499);
      assert.equal(fixture.calls.length, before);
      assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
    });

    it('a malformed HTTP request gets the JSON error body too', async () => {
      const { hostname, port } = new URL(gw.url);
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () =>
          socket.end('GET /healthz HTTP/1.1\r\nBad Header\r\n\r\n'),
        );
        let text = '';
        socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      assert.match(raw, /^HTTP\/1\.1 400 /);
      const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as ErrorBody;
      assert.equal(body.error.reason, 'MALFORMED_REQUEST');
    });
  });

  describe('server streaming as NDJSON', () => {
    it('streams 1000 rows, one JSON object per line, in order', async () => {
      const res = await post('/memories/export', { agent_id: 'a1' });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
      const text = await res.text();
      const lines = text.split('\n');
      assert.equal(lines.pop(), '');
      assert.equal(lines.length, 1000);
      const rows = lines.map(
        (l) => JSON.parse(l) as { id: string; integrity_status: string; sequence_number: number },
      );
      assert.deepEqual(
        rows.map((r) => r.id),
        Array.from({ length: 1000 }, (_, i) => `row-${i}`),
      );
      assert.ok(rows.every((r) => r.integrity_status === 'valid'));
      assert.equal(rows[999]!.sequence_number, 999);
    });

    it('a failure before the first row is a normal error response', async () => {
      await errorOf(
        await post('/memories/export', { agent_id: 'denied' }),
        403,
        'PERMISSION_DENIED',
        'SCOPE_FORBIDDEN',
      );
    });

    it('a failure after rows ends the stream with an error line', async () => {
      const res = await post('/memories/export', { agent_id: 'late-failure' });
      assert.equal(res.status, 200);
      const lines = (await res.text()).trim().split('\n');
      assert.equal(lines.length, 11);
      const last = JSON.parse(lines[10]!) as ErrorBody;
      assert.equal(last.error.code, 'UNAVAILABLE');
      assert.equal(last.error.reason, 'DEPENDENCY_UNAVAILABLE');
    });

    it('respects backpressure: a client that does not read stalls the upstream', async () => {
      const { hostname, port } = new URL(gw.url);
      const req = request({
        host: hostname,
        port,
        path: '/memories/export',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      const res = await new Promise<IncomingMessage>((resolve) => {
        req.on('response', resolve);
        req.end(JSON.stringify({ agent_id: 'flood' }));
      });
      res.pause();
      assert.equal(res.statusCode, 200);
      // The buffers fill, then the upstream stops: wait until two samples 300 ms apart agree (a busy
      // machine fills them more slowly), for at most 10 s.
      let first = -1;
      let second = fixture.floodSent();
      for (let i = 0; i < 33 && second !== first; i++) {
        first = second;
        await new Promise((r) => setTimeout(r, 300));
        second = fixture.floodSent();
      }
      req.destroy();
      assert.equal(second, first, 'the upstream kept producing while nobody read');
      // 64 KiB rows: what sits in socket, HTTP/2 and stream buffers, not an unbounded export.
      assert.ok(first < 1000, `${first} rows buffered`);
    });

    it('a client that disconnects cancels the upstream call', async () => {
      const abort = new AbortController();
      const res = await fetch(`${gw.url}/memories/export`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: 'slow' }),
        signal: abort.signal,
      });
      const reader = res.body!.getReader();
      const first = await reader.read();
      assert.ok(first.value && first.value.length > 0);
      abort.abort();
      await withTimeout(fixture.exportCancelled, 5000, 'the upstream export was not cancelled');
    });
  });

  describe('operations endpoints and logs', () => {
    it('/healthz answers while the process runs', async () => {
      const res = await fetch(`${gw.url}/healthz`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { status: 'ok' });
    });

    it('/metrics exposes request counters by route template, durations and process metrics', async () => {
      await fetch(`${gw.url}/memories/m1`);
      const res = await fetch(`${gw.url}/metrics`);
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.match(text, /http_requests_total\{method="GET",route="\/memories\/\{id\}",status="200"\} \d+/);
      assert.match(text, /http_requests_total\{method="GET",route="unmatched",status="404"\}/);
      assert.match(text, /http_request_duration_seconds_bucket\{le="[^"]+",route="\/memories\/\{id\}"\}/);
      assert.match(text, /process_cpu_user_seconds_total/);
      assert.ok(!text.includes('/memories/m1"'), 'raw paths must not become labels');
    });

    it('logs one line per request with route template and request id, never bodies or keys', async () => {
      await post(
        '/memories/add',
        { content: 'top secret memory', agent_id: 'a1' },
        {
          authorization: 'Bearer egk_supersecret',
          'x-request-id': 'log-check-1',
        },
      );
      const lines = gw.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
      const mine = lines.filter((l) => l.request_id === 'log-check-1');
      assert.equal(mine.length, 1);
      assert.equal(mine[0]!.route, '/memories/add');
      assert.equal(mine[0]!.method, 'POST');
      assert.equal(mine[0]!.status, 200);
      assert.equal(typeof mine[0]!.duration_ms, 'number');
      const all = gw.logs.join('');
      assert.ok(!all.includes('top secret memory') && !all.includes('egk_supersecret'));
    });
  });
});

describe('gateway readiness, deadlines and shutdown', () => {
  it('/readyz is 200 while every upstream is SERVING and 503 naming it once it stops', async () => {
    const fixture = await startFixtureServer();
    const gw = await startGateway({ upstreams: allAt(fixture.address) });
    try {
      const ready = await fetch(`${gw.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.equal(((await ready.json()) as { status: string }).status, 'ready');
      await fixture.stop();
      const started = Date.now();
      const notReady = await fetch(`${gw.url}/readyz`);
      assert.ok(Date.now() - started < 3000, 'readiness answers within its timeout');
      assert.equal(notReady.status, 503);
      const body = (await notReady.json()) as {
        status: string;
        upstreams: { address: string; status: string }[];
      };
      assert.equal(body.status, 'not_ready');
      assert.equal(body.upstreams[0]!.address, fixture.address);
      assert.notEqual(body.upstreams[0]!.status, 'SERVING');
    } finally {
      await gw.stop();
      await fixture.stop();
    }
  });

  it('a unary call past its deadline -> 504', async () => {
    const fixture = await startFixtureServer();
    const gw = await startGateway({ upstreams: allAt(fixture.address), unaryTimeoutMs: 200 });
    try {
      const res = await fetch(`${gw.url}/memories/err-SLOW`);
      const body = (await res.json()) as ErrorBody;
      assert.equal(res.status, 504);
      assert.equal(body.error.code, 'DEADLINE_EXCEEDED');
    } finally {
      await gw.stop();
      await fixture.stop();
    }
  });

  it('close() lets an in-flight request finish, then refuses new connections', async () => {
    const fixture = await startFixtureServer();
    const gw = await startGateway({ upstreams: allAt(fixture.address), shutdownTimeoutMs: 5000 });
    try {
      const inFlight = fetch(`${gw.url}/memories/err-SLOW`);
      await new Promise((r) => setTimeout(r, 100));
      const closed = gw.stop();
      const res = await inFlight;
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { id: string }).id, 'm1');
      await closed;
      await assert.rejects(fetch(`${gw.url}/healthz`));
    } finally {
      await fixture.stop();
    }
  });
});

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(what)), ms))]);
}

/** A GET with the path sent exactly as given (fetch would normalise it). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
