import assert from 'node:assert/strict';
import { Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { migrateLatest, openDatabase, type Database } from '@engram/db';
import { ConflictError, InvalidArgumentError, UnavailableError } from '@engram/errors';
import {
  bindService,
  createClient,
  createGrpcServer,
  decodeStatusDetails,
  listen,
  shutdownServer,
  unary,
} from '@engram/grpc-kit';
import { createLogger } from '@engram/logger';
import {
  IngestServiceClient,
  IngestServiceService,
  type AddMemoryRequest,
  type IngestInternalRequest,
  type IngestInternalResponse,
} from '@engram/proto/engram/ingest/v1/ingest';
import type { WriteResult } from '@engram/proto/engram/memory/v1/memory';
import { AnswerSeal, idempotencyMigrations, KnexIdempotencyStore } from '../src/index.ts';

const logger = createLogger({ service: 'test', level: 'silent' });

/**
 * bindService with a real store on PGlite behind a real gRPC server: which outcomes are kept, which
 * are not, and what a repeat meets. The handlers stand in for a service's: they count their runs
 * and fail on demand, which a real service cannot be made to do at will.
 */
describe('bindService with an idempotency store (real gRPC server, PGlite)', function () {
  this.timeout(30_000);
  let db: Database;
  let address = '';
  let client: IngestServiceClient;
  const runs = new Map<string, number>();
  let releaseSlow: () => void = () => {};
  let internalRuns = 0;

  const server = () =>
    createGrpcServer([
      {
        definition: IngestServiceService,
        implementation: bindService(
          IngestServiceService,
          {
            addMemory: async (req) => {
              const n = (runs.get(req.content) ?? 0) + 1;
              runs.set(req.content, n);
              if (req.content === 'invalid') throw new InvalidArgumentError('content: is bad');
              if (req.content === 'unavailable' && n === 1) throw new UnavailableError();
              if (req.content === 'race' && n === 1) throw new ConflictError('raced', 'DEDUPLICATION_RACE');
              if (req.content === 'slow') await new Promise<void>((r) => (releaseSlow = r));
              return result(`${req.content}#${n}`);
            },
            ingestInternal: () => {
              internalRuns++;
              return Promise.resolve({ results: [], applied: true, deprecated_ids: [] });
            },
          },
          {
            logger,
            // "Bearer project:key" names the caller's project and API key.
            authenticate: (md) => {
              const [projectId, keyId] = String(md.get('authorization')[0]).slice(7).split(':');
              return Promise.resolve({ projectId: projectId ?? '', keyId: keyId ?? '' });
            },
            describe: (p) => p,
            idempotency: new KnexIdempotencyStore({
              knex: db.knex,
              ttlMs: 3_600_000,
              logger,
              seal: new AnswerSeal('test-integrity-key'),
            }),
          },
        ),
      },
    ]);
  let grpcServer: ReturnType<typeof server>;

  before(async () => {
    db = await openDatabase({ dataDir: 'memory://' });
    await migrateLatest(db, idempotencyMigrations);
    grpcServer = server();
    address = `127.0.0.1:${await listen(grpcServer, '127.0.0.1', 0)}`;
    client = createClient(IngestServiceClient, address);
  });
  after(async () => {
    client?.close();
    if (grpcServer) await shutdownServer(grpcServer, 1000);
    await db?.close();
  });

  const md = (key: string | undefined, caller = 'p1:k1') => {
    const m = new Metadata();
    m.set('authorization', `Bearer ${caller}`);
    if (key !== undefined) m.set('idempotency-key', key);
    return m;
  };
  const add = (content: string, key: string | undefined, caller?: string) =>
    unary<AddMemoryRequest, WriteResult>(client.addMemory.bind(client), addRequest(content), md(key, caller));
  const failure = async (p: Promise<unknown>): Promise<ServiceError> => {
    try {
      await p;
    } catch (err) {
      return err as ServiceError;
    }
    assert.fail('expected the call to fail');
  };

  it('runs a write once per key and replays its answer; without a key every call runs', async () => {
    assert.equal((await add('once', 'k-once')).id, 'once#1');
    assert.equal((await add('once', 'k-once')).id, 'once#1');
    assert.equal(runs.get('once'), 1);
    assert.equal((await add('once', undefined)).id, 'once#2');
    assert.equal((await add('once', 'k-once', 'p1:k2')).id, 'once#3', 'another API key has its own keys');
  });

  it('replays a client error exactly, without running the handler again', async () => {
    const first = await failure(add('invalid', 'k-invalid'));
    const second = await failure(add('invalid', 'k-invalid'));
    assert.equal(first.code, Status.INVALID_ARGUMENT);
    assert.deepEqual([second.code, second.details], [first.code, first.details]);
    assert.deepEqual(decodeStatusDetails(second), decodeStatusDetails(first));
    assert.equal(runs.get('invalid'), 1);
  });

  it('keeps no transient failure: a retry with the key runs again and succeeds', async () => {
    assert.equal((await failure(add('unavailable', 'k-unavailable'))).code, Status.UNAVAILABLE);
    assert.equal((await add('unavailable', 'k-unavailable')).id, 'unavailable#2');
    const raced = await failure(add('race', 'k-race'));
    assert.equal(decodeStatusDetails(raced).reason, 'DEDUPLICATION_RACE');
    assert.equal((await add('race', 'k-race')).id, 'race#2', 'a write race asks for a retry: not kept');
  });

  it('answers a repeat during the first run ABORTED IDEMPOTENCY_KEY_IN_PROGRESS with a retry delay', async () => {
    const first = add('slow', 'k-slow');
    while (runs.get('slow') === undefined) await new Promise((r) => setTimeout(r, 10));
    const busy = await failure(add('slow', 'k-slow'));
    assert.equal(busy.code, Status.ABORTED);
    const details = decodeStatusDetails(busy);
    assert.equal(details.reason, 'IDEMPOTENCY_KEY_IN_PROGRESS');
    assert.equal(details.retryDelayMs, 1000);
    releaseSlow();
    assert.equal((await first).id, 'slow#1');
    assert.equal((await add('slow', 'k-slow')).id, 'slow#1');
  });

  it('refuses the key with another request: FAILED_PRECONDITION IDEMPOTENCY_KEY_REUSED', async () => {
    await add('reuse-a', 'k-reuse');
    const err = await failure(add('reuse-b', 'k-reuse'));
    assert.equal(err.code, Status.FAILED_PRECONDITION);
    assert.equal(decodeStatusDetails(err).reason, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(runs.get('reuse-b'), undefined);
  });

  it('refuses a malformed key, naming the metadata key', async () => {
    for (const key of ['x'.repeat(256), '']) {
      const err = await failure(add('malformed', key));
      assert.equal(err.code, Status.INVALID_ARGUMENT);
      assert.deepEqual(
        decodeStatusDetails(err).fieldViolations.map((v) => v.field),
        ['idempotency-key'],
      );
    }
    assert.equal(runs.get('malformed'), undefined);
  });

  it('ignores the key on an RPC that is not a public write (IngestInternal)', async () => {
    const call = () =>
      unary<IngestInternalRequest, IngestInternalResponse>(
        client.ingestInternal.bind(client),
        { items: [], kind: 'delta', depth: 0, atomic: true, deprecations: [] },
        md('k-internal'),
      );
    await call();
    await call();
    assert.equal(internalRuns, 2);
    assert.equal(
      await db.knex('idempotency_records').where({ idempotency_key: 'k-internal' }).first(),
      undefined,
    );
  });
});

function addRequest(content: string): AddMemoryRequest {
  return { content, agent_id: 'a', shared_with: [], metadata: undefined, steps: [], trigger_conditions: [] };
}

function result(id: string): WriteResult {
  return {
    id,
    deduplicated: false,
    scope: 'agent-private',
    content_flags: [],
    trust_level: 'internal',
    memory_type: 'standard',
    namespace: 'default',
  };
}
