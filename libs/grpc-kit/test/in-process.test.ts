import assert from 'node:assert/strict';
import { Client, credentials, Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { InvalidArgumentError, RateLimitedError } from '@engram/errors';
import { createLogger } from '@engram/logger';
import { Memory } from '@engram/proto/engram/memory/v1/memory';
import {
  GetMemoryRequest,
  ExportMemoriesRequest,
  MemoryStoreServiceService,
} from '@engram/proto/engram/memory/v1/memory_store';
import { HealthCheckRequest, HealthCheckResponse, HealthService } from '@engram/proto/grpc/health/v1/health';
import {
  bindService,
  createGrpcServer,
  HealthStatus,
  InProcessInvoker,
  listen,
  ServingStatus,
  shutdownServer,
  type InProcessClientStream,
  type ServiceRegistration,
} from '../src/index.ts';

const logger = createLogger({ service: 'test', level: 'silent' });
const GET = MemoryStoreServiceService.getMemory.path;
const EXPORT = MemoryStoreServiceService.exportMemories.path;

/** What the handlers saw, per request id: the metadata they read, whether their signal aborted. */
const seen = new Map<string, { requestId: string | undefined; aborted: Promise<void> }>();

function watch(id: string, metadata: Metadata, signal: AbortSignal) {
  const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
  const v = metadata.get('x-request-id')[0];
  seen.set(id, { requestId: typeof v === 'string' ? v : undefined, aborted });
  return aborted;
}

/** A memory-store bound as the services bind theirs: a slow read, a refused one, a stream. */
function registrations(): ServiceRegistration[] {
  const health = new HealthStatus(['engram.memory.v1.MemoryStoreService']);
  health.setAll(true);
  const implementation = bindService(
    MemoryStoreServiceService,
    {
      getMemory: async (req, ctx) => {
        if (req.id === 'slow') {
          await watch(req.id, ctx.metadata, ctx.signal);
          return Memory.fromPartial({ id: 'too late' });
        }
        if (req.id === 'invalid')
          throw new InvalidArgumentError('content: too long', [
            { field: 'content', description: 'at most 10 characters', reason: 'TOO_LONG' },
          ]);
        if (req.id === 'limited') throw new RateLimitedError('slow down', 1500, { scope: 'agent' });
        if (req.id === 'broken') throw new Error('a bug');
        void watch(req.id, ctx.metadata, ctx.signal);
        return Memory.fromPartial({ id: req.id, content: `read by ${ctx.requestId}` });
      },
      exportMemories: async function* (req, ctx) {
        const aborted = watch(`export:${req.agent_id}`, ctx.metadata, ctx.signal);
        const count = req.agent_id === 'endless' ? Infinity : 3;
        for (let i = 0; i < count; i++) {
          if (ctx.signal.aborted) return;
          yield Memory.fromPartial({ id: `m${i}` });
          if (count === Infinity) await Promise.race([aborted, new Promise((r) => setTimeout(r, 5))]);
        }
        if (req.agent_id === 'failing') throw new InvalidArgumentError('agent_id: fails after three');
      },
    },
    { logger, authenticate: () => Promise.resolve('caller') },
  );
  return [
    { definition: MemoryStoreServiceService, implementation },
    { definition: HealthStatus.definition, implementation: health.implementation() },
  ];
}

const identity = (b: Buffer) => b;
const md = (requestId = 'req-1') => {
  const m = new Metadata();
  m.set('x-request-id', requestId);
  return m;
};
const getBytes = (id: string) => GetMemoryRequest.encode({ id, agent_id: 'a' }).finish();
const inSeconds = (s: number) => new Date(Date.now() + s * 1000);

/** The same unary call over a real grpc-js channel, as the gateway makes it (bytes in, bytes out). */
function overWire(client: Client, path: string, request: Uint8Array, deadline: Date): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(path, identity, identity, Buffer.from(request), md(), { deadline }, (err, res) =>
      err ? reject(err) : resolve(res ?? Buffer.alloc(0)),
    );
  });
}

/**
 * The trailers of a call as its handler sent them. A trailers-only HTTP/2 response also carries the
 * transport's own headers, which grpc-js hands over as trailers too; nothing reads them, and there
 * is no transport in-process.
 */
function sentTrailers(metadata: Metadata) {
  const { 'content-type': _type, date: _date, ...sent } = metadata.getMap();
  return sent;
}

async function failure(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    return err as ServiceError;
  }
  assert.fail('the call succeeded');
}

/** Reads a stream to its end: the messages, and the error it ended with (if any). */
function drain(stream: InProcessClientStream): Promise<{ items: Buffer[]; error?: ServiceError }> {
  return new Promise((resolve) => {
    const items: Buffer[] = [];
    let error: ServiceError | undefined;
    stream.on('data', (b: Buffer) => items.push(b));
    stream.on('error', (e: ServiceError) => (error = e));
    stream.on('status', () => setImmediate(() => resolve({ items, ...(error ? { error } : {}) })));
  });
}

/** An export whose handler writes rows until it is stopped. */
const endlessExport = () =>
  ExportMemoriesRequest.encode({
    agent_id: 'endless',
    namespace: '',
    memory_types: [],
    include_deprecated: false,
  }).finish();

describe('the in-process invoker (the handlers of a gRPC server, called without a socket)', () => {
  const services = registrations();
  const invoker = new InProcessInvoker(services);
  const server = createGrpcServer(services);
  let client: Client;

  before(async () => {
    const port = await listen(server, '127.0.0.1', 0);
    client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  });
  after(async () => {
    client.close();
    await shutdownServer(server, 1000);
  });

  it('answers a unary call with the serialized response; the handler gets a copy of the metadata', async () => {
    const metadata = md('req-42');
    const bytes = await invoker.unary(GET, getBytes('m1'), { metadata, deadline: inSeconds(5) });
    assert.deepEqual(Memory.decode(bytes), Memory.fromPartial({ id: 'm1', content: 'read by req-42' }));
    assert.equal(seen.get('m1')?.requestId, 'req-42');
    const typed = await invoker.call(
      MemoryStoreServiceService.getMemory,
      { id: 'm2', agent_id: 'a' },
      { metadata },
    );
    assert.equal(typed.content, 'read by req-42');
    assert.deepEqual(Object.keys(metadata.getMap()), ['x-request-id'], "the caller's metadata is untouched");
  });

  it('fails with the status, details and trailing metadata a real grpc-js server sends', async () => {
    for (const id of ['invalid', 'limited', 'broken']) {
      const wire = await failure(overWire(client, GET, getBytes(id), inSeconds(5)));
      const local = await failure(
        invoker.unary(GET, getBytes(id), { metadata: md(), deadline: inSeconds(5) }),
      );
      assert.ok(local instanceof Error);
      assert.equal(local.code, wire.code, id);
      assert.equal(local.details, wire.details, id);
      assert.equal(local.message, wire.message, id);
      assert.ok(local.metadata instanceof Metadata);
      assert.deepEqual(local.metadata.getMap(), sentTrailers(wire.metadata), `${id}: the same trailers`);
    }
    const limited = await failure(invoker.unary(GET, getBytes('limited'), { metadata: md() }));
    assert.equal(limited.code, Status.RESOURCE_EXHAUSTED);
    assert.equal(limited.metadata.get('grpc-status-details-bin').length, 1, 'the rich status travels');
  });

  it('a deadline that passes cancels the handler and fails the caller with DEADLINE_EXCEEDED', async () => {
    const err = await failure(
      invoker.unary(GET, getBytes('slow'), { metadata: md(), deadline: new Date(Date.now() + 50) }),
    );
    assert.equal(err.code, Status.DEADLINE_EXCEEDED);
    await seen.get('slow')!.aborted; // the handler saw 'cancelled'
    const wire = await failure(overWire(client, GET, getBytes('slow'), new Date(Date.now() + 50)));
    assert.equal(wire.code, err.code, 'as over the wire');
    const past = await failure(invoker.unary(GET, getBytes('m3'), { metadata: md(), deadline: new Date(0) }));
    assert.equal(past.code, Status.DEADLINE_EXCEEDED, 'an expired deadline never reaches the handler');
    assert.equal(seen.has('m3'), false);
  });

  it("the caller's abort cancels the handler and fails the call with CANCELLED", async () => {
    seen.delete('slow');
    const abort = new AbortController();
    const call = invoker.unary(GET, getBytes('slow'), { metadata: md(), signal: abort.signal });
    setTimeout(() => abort.abort(), 20);
    const err = await failure(call);
    assert.equal(err.code, Status.CANCELLED);
    assert.equal(err.details, 'Cancelled on client');
    await seen.get('slow')!.aborted;
    const already = await failure(
      invoker.unary(GET, getBytes('m4'), { metadata: md(), signal: abort.signal }),
    );
    assert.equal(already.code, Status.CANCELLED);
    assert.equal(seen.has('m4'), false);
  });

  it('an unknown method, or a service this server does not have, answers UNIMPLEMENTED as the server does', async () => {
    for (const path of ['/engram.memory.v1.MemoryStoreService/NoSuchMethod', '/no.such.Service/Get']) {
      const wire = await failure(overWire(client, path, new Uint8Array(), inSeconds(5)));
      const local = await failure(invoker.unary(path, new Uint8Array(), { metadata: md() }));
      assert.equal(local.code, Status.UNIMPLEMENTED);
      assert.equal(local.details, wire.details);
      assert.equal(wire.code, Status.UNIMPLEMENTED);
    }
    assert.equal(invoker.hasService('engram.memory.v1.MemoryStoreService'), true);
    assert.equal(invoker.hasService('grpc.health.v1.Health'), true);
    assert.equal(invoker.hasService('no.such.Service'), false);
  });

  it('calls the health service registered beside the services', async () => {
    const bytes = await invoker.unary(
      HealthService.check.path,
      HealthCheckRequest.encode({ service: '' }).finish(),
      {
        metadata: new Metadata(),
      },
    );
    assert.equal(HealthCheckResponse.decode(bytes).status, ServingStatus.SERVING);
  });

  it('streams the messages of a server-streaming handler, then ends; a failure after them is an error', async () => {
    const request = (agent: string) =>
      ExportMemoriesRequest.encode({
        agent_id: agent,
        namespace: '',
        memory_types: [],
        include_deprecated: false,
      }).finish();
    const ok = await drain(invoker.serverStream(EXPORT, request('three'), { metadata: md() }));
    assert.deepEqual(
      ok.items.map((b) => Memory.decode(b).id),
      ['m0', 'm1', 'm2'],
    );
    assert.equal(ok.error, undefined);
    const failed = await drain(invoker.serverStream(EXPORT, request('failing'), { metadata: md() }));
    assert.equal(failed.items.length, 3, 'the rows sent before the failure arrive');
    assert.equal(failed.error?.code, Status.INVALID_ARGUMENT);
    assert.equal(failed.error?.metadata.get('grpc-status-details-bin').length, 1);
    const unknown = await drain(invoker.serverStream(`${EXPORT}Nope`, new Uint8Array(), { metadata: md() }));
    assert.equal(unknown.error?.code, Status.UNIMPLEMENTED);
  });

  it('cancel() stops a streaming handler and fails the stream with CANCELLED', async () => {
    const stream = invoker.serverStream(EXPORT, endlessExport(), { metadata: md() });
    const done = drain(stream);
    await new Promise<void>((resolve) => stream.once('data', () => resolve()));
    stream.cancel();
    const { error } = await done;
    assert.equal(error?.code, Status.CANCELLED);
    await seen.get('export:endless')!.aborted; // the handler's signal aborted: it stops writing
  });

  it('holds a streaming handler while the caller does not read (write() answers false until drained)', async () => {
    const stream = invoker.serverStream(EXPORT, endlessExport(), { metadata: md() });
    stream.on('error', () => {});
    await new Promise((r) => setTimeout(r, 200));
    // Paused (no 'data' listener): the Readable buffer plus the Writable buffer hold at most 2 x 16.
    assert.ok(stream.readableLength <= 16, `buffered ${stream.readableLength}`);
    stream.cancel();
  });
});
