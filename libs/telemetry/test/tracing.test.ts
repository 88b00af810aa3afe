import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import {
  Client,
  credentials,
  Metadata,
  Server,
  ServerCredentials,
  status as GrpcStatus,
  type ServiceError,
} from '@grpc/grpc-js';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  activeTracer,
  errorType,
  grpcClientInterceptors,
  otlpTracesUrl,
  rememberMessageOrigin,
  sqlOperation,
  startHttpServerSpan,
  startTracing,
  traceClientCall,
  traceGrpcServerCall,
  traceKnexQueries,
  tracePublish,
  type StopTracing,
  type TracesSampler,
} from '../src/index.ts';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

describe('tracing: off', () => {
  it('does nothing without an endpoint or an exporter, and every helper runs the plain call', async () => {
    const stop = await startTracing({ serviceName: 'test' });
    assert.equal(activeTracer(), undefined);
    assert.deepEqual(grpcClientInterceptors(), []);
    assert.equal(await traceClientCall('EVAL', {}, () => Promise.resolve(7)), 7);
    assert.equal(
      await traceGrpcServerCall(
        '/a.B/C',
        new Metadata(),
        () => 2,
        () => Promise.resolve(8),
      ),
      8,
    );
    assert.equal(
      await tracePublish({ name: 'p', system: 'nats', destination: 's', messageId: 'm' }, (h) =>
        Promise.resolve(h),
      ),
      undefined,
    );
    const span = startHttpServerSpan('GET', { traceparent: TRACEPARENT }, 'r1');
    assert.equal(
      span.run(() => trace.getActiveSpan()),
      undefined,
    );
    await stop();
  });

  it('builds the OTLP traces URL the way the OpenTelemetry specification says', () => {
    assert.equal(otlpTracesUrl(undefined, undefined), undefined);
    assert.equal(otlpTracesUrl('http://c:4318'), 'http://c:4318/v1/traces');
    assert.equal(otlpTracesUrl('http://c:4318/'), 'http://c:4318/v1/traces');
    assert.equal(otlpTracesUrl('http://c:4318', 'http://t:9/x'), 'http://t:9/x');
  });

  it('names operations and errors without ever quoting text', () => {
    assert.equal(sqlOperation('  select * from memories where content = $1'), 'SELECT');
    assert.equal(sqlOperation('with x as (select 1) select * from x'), 'WITH');
    assert.equal(sqlOperation("'secret' select"), undefined);
    assert.equal(sqlOperation(undefined), undefined);
    const pgError = Object.assign(new Error('insert into memories values ($1) - the content'), {
      code: '23505',
    });
    assert.equal(errorType(pgError), '23505');
    assert.equal(errorType(new TypeError('the content')), 'TypeError');
    assert.equal(errorType('the content'), '_OTHER');
  });
});

describe('tracing: on (in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  let stop: StopTracing;

  before(async () => {
    stop = await startTracing({ serviceName: 'telemetry-test', exporter });
  });
  after(async () => {
    await stop();
    assert.equal(activeTracer(), undefined, 'stopping unregisters the tracer');
  });
  beforeEach(() => exporter.reset());

  const spans = () => exporter.getFinishedSpans();
  const byName = (name: string): ReadableSpan => {
    const s = spans().find((x) => x.name === name);
    assert.ok(
      s,
      `no span ${name} in ${spans()
        .map((x) => x.name)
        .join(', ')}`,
    );
    return s;
  };

  it('keeps the first provider when started twice (embedded mode: one per process)', async () => {
    const second = await startTracing({ serviceName: 'other', exporter: new InMemorySpanExporter() });
    await second(); // a no-op: the first owner stays
    assert.notEqual(activeTracer(), undefined);
  });

  it('continues the caller trace in an HTTP server span named after the route template', () => {
    const span = startHttpServerSpan('POST', { traceparent: TRACEPARENT }, 'req-1');
    const inner = span.run(() => trace.getActiveSpan()?.spanContext());
    span.route('/memories/{id}');
    span.end(503);
    const s = byName('POST /memories/{id}');
    assert.equal(s.kind, SpanKind.SERVER);
    assert.equal(s.spanContext().traceId, TRACE_ID);
    assert.equal(s.parentSpanContext?.spanId, PARENT_ID);
    assert.equal(inner?.spanId, s.spanContext().spanId, 'run() makes the span active');
    assert.deepEqual(s.attributes, {
      'http.request.method': 'POST',
      'engram.request_id': 'req-1',
      'http.route': '/memories/{id}',
      'http.response.status_code': 503,
    });
    assert.equal(s.status.code, SpanStatusCode.ERROR);
  });

  it('does not trace what the caller says not to (probes), and maps odd methods to _OTHER', () => {
    startHttpServerSpan('GET', {}, 'r', false).end(200);
    assert.equal(spans().length, 0);
    const s = startHttpServerSpan('BREW', {}, 'r');
    s.end(404);
    assert.equal(byName('HTTP').attributes['http.request.method'], '_OTHER');
  });

  it('carries the trace across a real gRPC call: client span, metadata, server span', async () => {
    const server = new Server();
    const path = '/engram.test.v1.EchoService/Echo';
    const seen: { traceparent?: unknown } = {};
    const identity = (b: Buffer) => b;
    server.addService(
      {
        Echo: {
          path,
          requestStream: false,
          responseStream: false,
          requestSerialize: identity,
          requestDeserialize: identity,
          responseSerialize: identity,
          responseDeserialize: identity,
        },
      },
      {
        Echo: (
          call: { metadata: Metadata; request: Buffer },
          cb: (err: Partial<ServiceError> | null, res?: Buffer) => void,
        ) => {
          seen.traceparent = call.metadata.get('traceparent')[0];
          void traceGrpcServerCall(
            path,
            call.metadata,
            () => GrpcStatus.NOT_FOUND,
            () =>
              call.request.toString() === 'fail'
                ? Promise.reject(new Error('not found: the content'))
                : Promise.resolve(call.request),
          ).then(
            (res) => cb(null, res),
            () => cb({ code: GrpcStatus.NOT_FOUND, details: 'nope' }),
          );
        },
      },
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure(), {
      interceptors: grpcClientInterceptors(),
    });
    const call = (body: string) =>
      new Promise<Buffer>((resolve, reject) =>
        client.makeUnaryRequest(path, identity, identity, Buffer.from(body), new Metadata(), (err, res) =>
          err ? reject(err) : resolve(res!),
        ),
      );
    try {
      // Outside any trace: no client span, nothing injected; the server starts a trace of its own.
      await call('probe');
      assert.equal(seen.traceparent, undefined);
      assert.deepEqual(
        spans().map((s) => s.kind),
        [SpanKind.SERVER],
      );
      exporter.reset();

      const http = startHttpServerSpan('POST', { traceparent: TRACEPARENT }, 'r');
      await http.run(() => call('hello'));
      await assert.rejects(http.run(() => call('fail')));
      http.end(200);
      const [okClient, failClient] = spans().filter((s) => s.kind === SpanKind.CLIENT);
      const [okServer, failServer] = spans().filter((s) => s.kind === SpanKind.SERVER);
      assert.ok(okClient && failClient && okServer && failServer);
      const root = byName('POST');
      assert.equal(okClient.name, 'engram.test.v1.EchoService/Echo');
      assert.equal(okClient.parentSpanContext?.spanId, root.spanContext().spanId);
      assert.equal(okServer.parentSpanContext?.spanId, okClient.spanContext().spanId);
      assert.equal(okServer.spanContext().traceId, TRACE_ID);
      assert.match(String(seen.traceparent), new RegExp(`^00-${TRACE_ID}-`));
      assert.deepEqual(okServer.attributes, {
        'rpc.system': 'grpc',
        'rpc.service': 'engram.test.v1.EchoService',
        'rpc.method': 'Echo',
        'rpc.grpc.status_code': 0,
      });
      // NOT_FOUND is the caller's problem: an error on the client span, not on the server span.
      assert.equal(failClient.status.code, SpanStatusCode.ERROR);
      assert.equal(failServer.status.code, SpanStatusCode.UNSET);
      assert.equal(failServer.attributes['rpc.grpc.status_code'], GrpcStatus.NOT_FOUND);
      assert.equal(failServer.attributes['error.type'], 'NOT_FOUND');
    } finally {
      client.close();
      server.forceShutdown();
    }
  });

  it('makes a span per knex query inside a trace, from the query events, with the operation only', () => {
    const knex = new EventEmitter();
    traceKnexQueries(knex);
    traceKnexQueries(knex); // once per instance
    const q = (uid: string, sql: string) => ({ __knexQueryUid: uid, sql, bindings: ['the content'] });
    knex.emit('query', q('outside', 'select 1')); // no active span: ignored
    const http = startHttpServerSpan('GET', {}, 'r');
    http.run(() => {
      knex.emit('query', q('a', 'insert into memories (content) values ($1)'));
      knex.emit('query', q('b', 'select * from memories'));
      knex.emit('query', { sql: 'BEGIN;' }); // transaction control without a uid: ignored
    });
    knex.emit('query-response', [], q('a', ''));
    knex.emit('query-error', Object.assign(new Error('boom: the content'), { code: '23505' }), q('b', ''));
    knex.emit('query-response', [], q('outside', ''));
    http.end(200);
    const db = spans().filter((s) => s.kind === SpanKind.CLIENT);
    assert.deepEqual(
      db.map((s) => [s.name, s.attributes]),
      [
        ['INSERT', { 'db.system.name': 'postgresql', 'db.operation.name': 'INSERT' }],
        ['SELECT', { 'db.system.name': 'postgresql', 'db.operation.name': 'SELECT', 'error.type': '23505' }],
      ],
    );
    assert.equal(db[1]!.status.code, SpanStatusCode.ERROR);
    assert.ok(db.every((s) => s.parentSpanContext?.spanId === byName('GET').spanContext().spanId));
  });

  it('wraps a client call only within a trace, and records a failure by type', async () => {
    await traceClientCall('EVAL', { 'db.system.name': 'redis' }, () => Promise.resolve(1));
    assert.equal(spans().length, 0);
    const http = startHttpServerSpan('GET', {}, 'r');
    await assert.rejects(
      http.run(() => traceClientCall('EVAL', {}, () => Promise.reject(new RangeError('the content')))),
    );
    http.end(200);
    const s = byName('EVAL');
    assert.equal(s.attributes['error.type'], 'RangeError');
    assert.equal(s.status.message, undefined);
  });

  it('publishes in the trace of the request that appended the event, with W3C headers', async () => {
    const http = startHttpServerSpan('POST', { traceparent: TRACEPARENT }, 'r');
    http.run(() => rememberMessageOrigin('event-1'));
    http.end(200);
    // Later, from the relay's loop (no active span):
    const sent = await tracePublish(
      { name: 'publish ENGRAM_AUDIT', system: 'nats', destination: 'engram.audit.p.X', messageId: 'event-1' },
      (headers) => Promise.resolve(headers),
    );
    const s = byName('publish ENGRAM_AUDIT');
    assert.equal(s.kind, SpanKind.PRODUCER);
    assert.equal(s.spanContext().traceId, TRACE_ID);
    assert.equal(s.parentSpanContext?.spanId, byName('POST').spanContext().spanId);
    assert.equal(sent?.traceparent, `00-${TRACE_ID}-${s.spanContext().spanId}-01`);
    // An event nobody remembered starts a trace of its own.
    await tracePublish({ name: 'orphan', system: 'nats', destination: 'd', messageId: 'event-2' }, () =>
      Promise.resolve(),
    );
    assert.equal(byName('orphan').parentSpanContext, undefined);
  });
});

describe('tracing: collector down', () => {
  it('stops within the flush timeout and says the last spans were lost, without failing', async () => {
    const warnings: string[] = [];
    const stop = await startTracing({
      serviceName: 'telemetry-test',
      endpoint: 'http://127.0.0.1:9', // nothing listens on the discard port
      flushTimeoutMs: 300,
      logger: { warn: (_obj, msg) => warnings.push(msg) },
    });
    startHttpServerSpan('GET', {}, 'r').end(200);
    const started = Date.now();
    await stop();
    assert.ok(Date.now() - started < 2000, 'bounded by flushTimeoutMs');
    assert.deepEqual(warnings, ['could not export the last spans']);
    assert.equal(activeTracer(), undefined);
  });
});

describe('tracing: sampling (OTEL_TRACES_SAMPLER)', () => {
  const recorded = async (opts: { sampler: TracesSampler; samplerArg?: number }, traceparent?: string) => {
    const exporter = new InMemorySpanExporter();
    const stop = await startTracing({ serviceName: 'telemetry-test', exporter, ...opts });
    try {
      startHttpServerSpan('GET', traceparent ? { traceparent } : {}, 'r').end(200);
      return exporter.getFinishedSpans().length;
    } finally {
      await stop();
    }
  };

  it('records what the sampler says, following a sampled caller under the parentbased ones', async () => {
    assert.equal(await recorded({ sampler: 'always_off' }), 0);
    assert.equal(await recorded({ sampler: 'traceidratio', samplerArg: 0 }), 0);
    assert.equal(await recorded({ sampler: 'traceidratio', samplerArg: 1 }), 1);
    assert.equal(await recorded({ sampler: 'parentbased_traceidratio', samplerArg: 0 }), 0);
    assert.equal(await recorded({ sampler: 'parentbased_traceidratio', samplerArg: 0 }, TRACEPARENT), 1);
    assert.equal(await recorded({ sampler: 'parentbased_always_on' }, TRACEPARENT.replace(/01$/, '00')), 0);
  });
});
