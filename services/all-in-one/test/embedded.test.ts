import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEngramConfig } from '@engram/config';
import { Metadata } from '@grpc/grpc-js';
import { createClient, unary } from '@engram/grpc-kit';
import { createLogger } from '@engram/logger';
import { HealthClient, HealthCheckResponse_ServingStatus } from '@engram/proto/grpc/health/v1/health';
import { ApiClient, freshPgliteDir, portOpen } from '@engram/testing';
import { startEmbedded } from '../src/index.ts';

const logger = createLogger({ service: 'all-in-one-test', level: 'silent' });

function configFor(dataDir: string, env: Record<string, string> = {}) {
  return loadEngramConfig({
    ENGRAM_DATA_DIR: dataDir,
    ENGRAM_HTTP_PORT: '0',
    ENGRAM_GRPC_PORT: '0',
    SERVICE_API_KEY: 'egk_test_' + randomBytes(24).toString('base64url'),
    EMBEDDING_PROVIDER: 'hash',
    LOG_LEVEL: 'silent',
    ...env,
  });
}

function listenOn(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}

/**
 * The all-in-one (`make start`) as its own unit: the five services' own compose functions on one
 * process, one gRPC server, the gateway in front, and one Runtime that stops all of it. The suites
 * under test/ drive its REST and gRPC surface; these check the process itself.
 */
describe('the all-in-one process (PGlite)', function () {
  this.timeout(120_000);
  let dataDir: string;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'engram-all-in-one-'));
    await freshPgliteDir(join(dataDir, 'pglite'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  for (const inProcess of ['true', 'false'])
    it(`serves all five services on one gRPC server, each SERVING, behind the gateway (EMBEDDED_IN_PROCESS=${inProcess})`, async () => {
      const config = configFor(dataDir, { EMBEDDED_IN_PROCESS: inProcess });
      assert.equal(config.embeddedInProcess, inProcess === 'true');
      const engram = await startEmbedded(config, logger);
      const health = createClient(HealthClient, `127.0.0.1:${engram.grpcPort}`);
      try {
        for (const service of [
          'engram.ingest.v1.IngestService',
          'engram.memory.v1.MemoryStoreService',
          'engram.memory.v1.MemoryWriterService',
          'engram.admin.v1.AdminService',
          'engram.retrieval.v1.RetrievalService',
          'engram.ace.v1.AceService',
          'engram.security.v1.SecurityAdminService',
        ]) {
          const res = await unary(health.check.bind(health), { service }, new Metadata());
          assert.equal(res.status, HealthCheckResponse_ServingStatus.SERVING, service);
        }
        const api = new ApiClient(`http://127.0.0.1:${engram.httpPort}`, config.serviceApiKey);
        const add = await api.post<{ id: string }>('/memories/add', {
          content: 'The nightly export runs at 02:00 UTC.',
          agent_id: 'planner',
        });
        assert.equal(add.status, 200, add.text);
        const found = await api.post<{ memories: { id: string }[] }>('/memories/query', {
          query: 'when does the nightly export run',
          agent_id: 'planner',
        });
        assert.equal(found.status, 200, found.text);
        assert.equal(found.body.memories[0]?.id, add.body.id, 'written by one service, found by another');
      } finally {
        health.close();
        await engram.stop();
      }
    });

  it('stops in one ordered shutdown: gateway, gRPC server, clients, relay, pools, traces; both ports closed', async () => {
    const engram = await startEmbedded(configFor(dataDir), logger);
    const plan = engram.proc.runtime.plan();
    const at = (name: string) => plan.findIndex((s) => s.name === name);
    for (const name of [
      'gateway',
      'grpc server',
      'ingest-security client',
      'outbox relay',
      'database',
      'tracing',
    ])
      assert.ok(at(name) >= 0, `${name} is a shutdown step (${JSON.stringify(plan)})`);
    assert.ok(at('gateway') < at('grpc server'), 'the gateway stops taking requests first');
    assert.ok(at('grpc server') < at('ingest-security client'), 'servers drain before their clients close');
    assert.ok(
      at('outbox relay') < at('database'),
      'the relay publishes what is committed before the pools close',
    );
    assert.ok(at('database') < at('tracing'), 'the traces of the shutdown are flushed last');
    assert.equal(plan.filter((s) => s.name === 'outbox relay').length, 1, 'five services, one relay');
    assert.equal(plan.filter((s) => s.name === 'database').length, 1, 'five services, one pool');

    await engram.stop();
    assert.equal(await portOpen(engram.httpPort), false, 'the REST port is closed');
    assert.equal(await portOpen(engram.grpcPort), false, 'the gRPC port is closed');
    // The data directory is released: the next start opens it at once and finds the store intact.
    const again = await startEmbedded(configFor(dataDir), logger);
    await again.stop();
  });

  it('a start that fails (REST port taken) says why and leaves nothing open', async () => {
    const taken = await listenOn();
    const addr = taken.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    try {
      await assert.rejects(
        startEmbedded(configFor(dataDir, { ENGRAM_HTTP_PORT: String(port) }), logger),
        /EADDRINUSE/,
      );
    } finally {
      taken.close();
    }
    // Its gRPC server, pools and the PGlite lock were released: the same directory starts again.
    const engram = await startEmbedded(configFor(dataDir), logger);
    try {
      const api = new ApiClient(`http://127.0.0.1:${engram.httpPort}`, 'egk_wrong');
      assert.equal((await api.get('/memories/00000000-0000-7000-8000-000000000000?agent_id=a')).status, 401);
    } finally {
      await engram.stop();
    }
  });
});
