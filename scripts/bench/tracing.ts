/**
 * What tracing costs: each instrumented boundary called directly (baseline, the instrumentation
 * bypassed), through its tracing helper with tracing off (no OTLP endpoint: what every deployment
 * without a collector runs), and with tracing on (a provider, batch processor and an exporter that
 * drops the spans, so the export's network cost is left out). Then a real loopback gRPC call and
 * adds through the embedded gateway, tracing off and on. Prints medians and replaces the
 * bench:tracing section of docs/benchmarks.md (`make bench-tracing`).
 * Options (environment): BENCH_N=100000 calls per round, BENCH_ROUNDS=7, BENCH_E2E=0 skips the
 * gRPC and gateway sections.
 */
import { EventEmitter } from 'node:events';
import {
  Client,
  credentials,
  Metadata,
  Server,
  ServerCredentials,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceError,
} from '@grpc/grpc-js';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import {
  grpcClientInterceptors,
  startHttpServerSpan,
  startTracing,
  traceClientCall,
  traceGrpcServerCall,
  traceKnexQueries,
  tracePublish,
} from '@engram/telemetry';
import { writeBenchSection } from './bench-section.ts';
import { startTestEngram } from '@engram/all-in-one/testing';
import { median } from './retrieval/stats.ts';

const N = Number(process.env.BENCH_N ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const E2E = process.env.BENCH_E2E !== '0';
const printed: string[] = [];
const log = (s: string) => {
  printed.push(s);
  process.stdout.write(s + '\n');
};

const PATH = '/engram.memory.v1.MemoryWriterService/PersistMemories';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const done = () => Promise.resolve(1);
const codeOf = () => 13;

/** One call through a boundary; sync or async. */
type Call = () => unknown;

interface Boundary {
  readonly name: string;
  readonly baseline: Call;
  readonly traced: Call;
}

function boundaries(): Boundary[] {
  const md = new Metadata();
  md.set('traceparent', TRACEPARENT);
  const headers = { traceparent: TRACEPARENT, 'content-type': 'application/json' };
  const plainKnex = new EventEmitter();
  const tracedKnex = new EventEmitter();
  traceKnexQueries(tracedKnex);
  let uid = 0;
  const query = (e: EventEmitter) => {
    const q = { __knexQueryUid: String(uid++), sql: 'select * from memories where id = $1', bindings: ['x'] };
    e.emit('query', q);
    e.emit('query-response', [], q);
  };
  const spec = {
    name: 'publish ENGRAM_AUDIT',
    system: 'nats',
    destination: 'engram.audit.p.T',
    messageId: 'm',
  };
  return [
    {
      name: 'gRPC server call (bindService wrapper)',
      baseline: done,
      traced: () => traceGrpcServerCall(PATH, md, codeOf, done),
    },
    {
      name: 'HTTP request span (gateway)',
      baseline: () => 1,
      traced: () => {
        const span = startHttpServerSpan('POST', headers, 'req-1');
        span.route('/memories/add');
        span.run(() => 1);
        span.end(200);
      },
    },
    { name: 'knex query (query events)', baseline: () => query(plainKnex), traced: () => query(tracedKnex) },
    {
      name: 'Redis EVAL (client span)',
      baseline: done,
      traced: () => traceClientCall('EVAL', { 'db.system.name': 'redis' }, done),
    },
    { name: 'NATS publish (producer span)', baseline: done, traced: () => tracePublish(spec, done) },
  ];
}

/** Nanoseconds per call: the median of ROUNDS rounds of n calls (after one warm-up round). */
async function nsPerCall(call: Call, n = N, rounds = ROUNDS): Promise<number> {
  const once = async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const r = call();
      if (r instanceof Promise) await r;
    }
    return Number(process.hrtime.bigint() - t0) / n;
  };
  await once();
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) samples.push(await once());
  return median(samples);
}

/** Runs `fn` inside a request span when tracing is on, as the boundaries run in production. */
function insideRequest<T>(fn: () => Promise<T>): Promise<T> {
  const span = trace.getTracer('bench').startSpan('request');
  return context.with(trace.setSpan(ROOT_CONTEXT, span), fn).finally(() => span.end());
}

/** Drops every span: measures creating and queueing spans, not shipping them. */
const dropAll: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: () => Promise.resolve(),
};

const fmt = (ns: number) =>
  Math.abs(ns) >= 1e6
    ? `${(ns / 1e6).toFixed(2)} ms`
    : Math.abs(ns) >= 10_000
      ? `${(ns / 1000).toFixed(1)} µs`
      : `${ns.toFixed(0)} ns`;
const pad = (s: string, w: number) => s.padEnd(w);

async function micro(): Promise<void> {
  log(`\nPer call, median of ${ROUNDS} rounds of ${N.toLocaleString('en')} calls (Node ${process.version})`);
  const list = boundaries();
  const off: number[] = [];
  const base: number[] = [];
  for (const b of list) {
    base.push(await nsPerCall(b.baseline));
    off.push(await nsPerCall(b.traced));
  }
  // For reference: the same span through the API's own no-op tracer (what the activeTracer() gate avoids).
  const noopApi = await nsPerCall(() =>
    trace.getTracer('bench').startActiveSpan('x', (s) => {
      s.end();
      return 1;
    }),
  );
  const stop = await startTracing({ serviceName: 'bench', exporter: dropAll, batch: true });
  const on: number[] = [];
  try {
    await insideRequest(async () => {
      for (const b of boundaries()) on.push(await nsPerCall(b.traced));
    });
  } finally {
    await stop();
  }
  log(
    `${pad('boundary', 40)}${pad('baseline', 11)}${pad('off', 11)}${pad('off - base', 13)}${pad('on', 11)}on - base`,
  );
  list.forEach((b, i) => {
    const d = off[i]! - base[i]!;
    log(
      `${pad(b.name, 40)}${pad(fmt(base[i]!), 11)}${pad(fmt(off[i]!), 11)}${pad(`${d >= 0 ? '+' : ''}${fmt(d)}`, 13)}${pad(fmt(on[i]!), 11)}+${fmt(on[i]! - base[i]!)}`,
    );
  });
  log(`(reference: a no-op span through the OpenTelemetry API with no SDK: ${fmt(noopApi)} per call)`);
}

/** Tracing on for `fn` (inside a request span, as in production), off again afterwards. */
async function withTracing<T>(fn: () => Promise<T>): Promise<T> {
  const stop = await startTracing({ serviceName: 'bench', exporter: dropAll, batch: true });
  try {
    return await insideRequest(fn);
  } finally {
    await stop();
  }
}

/**
 * A real unary call on loopback, three ways, rounds interleaved so that drift hits all alike: a plain
 * handler and client; the traced handler and a client made with tracing off (production without a
 * collector: no interceptor); the traced handler and a client made with tracing on, measured on.
 */
async function loopbackGrpc(): Promise<void> {
  const identity = (b: Buffer) => b;
  const def = {
    Echo: {
      path: PATH,
      requestStream: false,
      responseStream: false,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
    },
  };
  const serve = async (wrap: boolean) => {
    const server = new Server();
    server.addService(def, {
      Echo: (call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>) => {
        const run = () => Promise.resolve(call.request);
        void (wrap ? traceGrpcServerCall(PATH, call.metadata, codeOf, run) : run()).then((r) => cb(null, r));
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) =>
        e ? reject(e) : resolve(p),
      ),
    );
    const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure(), {
      interceptors: grpcClientInterceptors(),
    });
    const payload = Buffer.alloc(256, 7);
    const call = () =>
      new Promise<Buffer>((resolve, reject) =>
        client.makeUnaryRequest(
          PATH,
          identity,
          identity,
          payload,
          new Metadata(),
          (e: ServiceError | null, r) => (e ? reject(e) : resolve(r!)),
        ),
      );
    return { call, close: () => (client.close(), server.forceShutdown()) };
  };
  const plain = await serve(false);
  const off = await serve(true);
  const on = await withTracing(() => serve(true)); // its client gets the tracing interceptor
  const calls = Math.max(500, Math.round(N / 50));
  const samples = { plain: [] as number[], off: [] as number[], on: [] as number[] };
  try {
    for (const s of [plain, off]) await nsPerCall(s.call, calls, 1); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      samples.plain.push(await nsPerCall(plain.call, calls, 1));
      samples.off.push(await nsPerCall(off.call, calls, 1));
      samples.on.push(await withTracing(() => nsPerCall(on.call, calls, 1)));
    }
  } finally {
    for (const s of [plain, off, on]) s.close();
  }
  log(`\nLoopback gRPC unary call (256 bytes), median of ${ROUNDS} interleaved rounds of ${calls} calls`);
  log(
    `  plain ${fmt(median(samples.plain))}, tracing off ${fmt(median(samples.off))}, tracing on ${fmt(median(samples.on))} (client + server span)`,
  );
}

/**
 * Adds through the embedded gateway (PGlite, hash embeddings), rounds alternating tracing off and on
 * in one process. Its gRPC clients are made with tracing on, so "off" here still passes each call
 * through the (idle) interceptor: a slight overestimate of a deployment without a collector.
 */
async function gatewayAdds(): Promise<void> {
  const perRound = 40;
  let i = 0;
  const t = await withTracing(() =>
    startTestEngram('pglite', {
      RATE_LIMIT_PROJECT_PER_MINUTE: '1000000',
      RATE_LIMIT_AGENT_PER_MINUTE: '1000000',
    }),
  );
  const add = async () => {
    const res = await t.admin.post('/memories/add', {
      content: `bench memory number ${i++}`,
      agent_id: 'bench',
    });
    if (res.status !== 200) throw new Error(`add failed: ${res.status} ${res.text}`);
  };
  const round = async () => {
    const lat: number[] = [];
    for (let k = 0; k < perRound; k++) {
      const t0 = process.hrtime.bigint();
      await add();
      lat.push(Number(process.hrtime.bigint() - t0));
    }
    return median(lat);
  };
  const off: number[] = [];
  const on: number[] = [];
  try {
    for (let k = 0; k < 20; k++) await add(); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      off.push(await round());
      on.push(await withTracing(round));
    }
  } finally {
    await t.stop();
  }
  const [a, b] = [median(off), median(on)];
  log(
    `\nPOST /memories/add through the embedded gateway (PGlite), ${ROUNDS} alternating rounds of ${perRound} adds`,
  );
  log(
    `  tracing off ${fmt(a)}, tracing on ${fmt(b)} (${(((b - a) / a) * 100).toFixed(1)} %), medians of round medians`,
  );
}

await micro();
if (E2E) {
  await loopbackGrpc();
  await gatewayAdds();
}
writeBenchSection(
  'tracing',
  [
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, \`make bench-tracing\`:`,
    '',
    '```',
    ...printed.join('\n').trim().split('\n'),
    '```',
  ].join('\n'),
);
