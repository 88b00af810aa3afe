import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { decodeStatusDetails } from '@engram/grpc-kit';
import { RetrievalServiceClient, type QueryRequest } from '@engram/proto/engram/retrieval/v1/retrieval';
import {
  ApiClient,
  compiledEntry,
  createTestDatabase,
  freePort,
  ManagedProcess,
  type TestDatabase,
} from '@engram/testing';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REDIS_URL = process.env.ENGRAM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const AGENT_LIMIT = 4;
const PROJECT_LIMIT = 6;

interface Instance {
  readonly proc: ManagedProcess;
  readonly http: string;
  readonly grpc: string;
}

/** One Engram process (gateway + every service) on the shared database, optionally on Redis. */
async function startInstance(
  databaseUrl: string,
  secrets: { adminKey: string; integrityKey: string; internalToken: string },
  redis: boolean,
) {
  const httpPort = await freePort();
  const grpcPort = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-rl-'));
  const proc = ManagedProcess.spawn(
    'engram',
    process.execPath,
    compiledEntry('services/all-in-one', 'main'),
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: databaseUrl,
      // Both instances publish to their own bus: no process on this database uses NATS.
      EVENTS_DELIVERY: 'in-process',
      ...(redis ? { REDIS_URL } : {}),
      SERVICE_API_KEY: secrets.adminKey,
      SERVICE_INTEGRITY_KEY: secrets.integrityKey,
      ENGRAM_INTERNAL_TOKEN: secrets.internalToken,
      ENGRAM_DATA_DIR: dataDir,
      ENGRAM_HTTP_PORT: String(httpPort),
      ENGRAM_GRPC_PORT: String(grpcPort),
      EMBEDDING_PROVIDER: 'hash',
      LOG_LEVEL: 'warn',
      DATABASE_POOL_MAX: '4',
      RATE_LIMIT_AGENT_PER_MINUTE: String(AGENT_LIMIT),
      RATE_LIMIT_PROJECT_PER_MINUTE: String(PROJECT_LIMIT),
    },
    ROOT,
  );
  const http = `http://127.0.0.1:${httpPort}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!proc.running) throw new Error(`engram exited during startup\n${proc.tail()}`);
    const ok = await fetch(`${http}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`not ready\n${proc.tail()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { proc, http, grpc: `127.0.0.1:${grpcPort}`, dataDir };
}

/** Waits for a fresh minute when the current one (the limiter's fixed window) is nearly over. */
async function awayFromWindowEdge(): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 45_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 250));
}

function grpcQuery(address: string, key: string, req: Partial<QueryRequest>): Promise<ServiceError | null> {
  const client = new RetrievalServiceClient(address, credentials.createInsecure());
  const md = new Metadata();
  md.set('authorization', `Bearer ${key}`);
  return new Promise((resolve) => {
    client.query(
      { query: 'q', agent_id: '', memory_types: [], scopes: [], agent_ids: [], ...req },
      md,
      (err) => {
        client.close();
        resolve(err);
      },
    );
  });
}

for (const shared of [true, false]) {
  describe(`rate limits across two Engram processes ${shared ? 'sharing one Redis' : 'without Redis (control)'}`, function () {
    this.timeout(180_000);
    let db: TestDatabase;
    let instances: (Instance & { dataDir: string })[] = [];
    let one: ApiClient;
    let two: ApiClient;
    let key: string;
    let admin: ApiClient;

    /** A key of a fresh project: its counters (in Redis too) belong to this run alone. */
    const projectKey = async () => {
      const project = `rl-${randomBytes(6).toString('hex')}`;
      assert.equal((await admin.post('/admin/projects', { project_id: project, name: project })).status, 200);
      const created = await admin.post<{ api_key: string }>('/admin/keys', {
        project_id: project,
        name: 'rl',
        trust_level: 'internal',
        any_agent: true,
      });
      return created.body.api_key;
    };

    before(async () => {
      db = await createTestDatabase();
      const secrets = {
        adminKey: 'egk_rl_' + randomBytes(24).toString('base64url'),
        integrityKey: randomBytes(32).toString('base64url'),
        internalToken: randomBytes(24).toString('base64url'),
      };
      instances = [await startInstance(db.url, secrets, shared)];
      instances.push(await startInstance(db.url, secrets, shared));
      admin = new ApiClient(instances[0]!.http, secrets.adminKey);
      key = await projectKey();
      one = new ApiClient(instances[0]!.http, key);
      two = new ApiClient(instances[1]!.http, key);
    });
    after(async () => {
      await Promise.all(instances.map((i) => i.proc.stop()));
      for (const i of instances) rmSync(i.dataDir, { recursive: true, force: true });
      await db?.drop();
    });

    const query = (c: ApiClient, agent: string) =>
      c.post('/memories/query', { query: 'deploys', agent_id: agent });

    if (shared) {
      it('two gateways share one budget: the agent gets its limit in total, then 429 with Retry-After', async () => {
        await awayFromWindowEdge();
        const statuses: number[] = [];
        for (let i = 0; i < AGENT_LIMIT + 2; i++)
          statuses.push((await query(i % 2 === 0 ? one : two, 'noisy')).status);
        assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
        const refused = await query(one, 'noisy');
        assert.equal(refused.status, 429);
        const retryAfter = Number(refused.headers.get('retry-after'));
        assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
        assert.equal(refused.headers.get('ratelimit-limit'), String(AGENT_LIMIT));
        assert.equal(refused.headers.get('ratelimit-remaining'), '0');
        assert.equal((refused.body as { error: { reason: string } }).error.reason, 'RATE_LIMITED');
      });

      it('direct gRPC callers are limited alike: RESOURCE_EXHAUSTED with RetryInfo', async () => {
        const err = await grpcQuery(instances[1]!.grpc, key, { agent_id: 'noisy' });
        assert.equal(err?.code, status.RESOURCE_EXHAUSTED);
        const details = decodeStatusDetails(err);
        assert.equal(details.reason, 'RATE_LIMITED');
        assert.ok((details.retryDelayMs ?? 0) > 0);
        assert.equal(details.metadata.scope, 'agent');
      });

      it('the noisy agent did not exhaust the project: others get the rest of the project budget, then 429', async () => {
        const statuses = [
          (await query(two, 'quiet-1')).status,
          (await query(one, 'quiet-2')).status,
          (await query(two, 'quiet-3')).status,
        ];
        assert.deepEqual(statuses, [200, 200, 429]);
      });

      it('a REST write (gateway -> ingest -> memory-store) is counted once, and health checks not at all', async () => {
        const writer = new ApiClient(instances[0]!.http, await projectKey());
        await awayFromWindowEdge();
        for (let i = 0; i < 5; i++) assert.equal((await fetch(`${instances[0]!.http}/readyz`)).status, 200);
        const writes: number[] = [];
        for (let i = 0; i < AGENT_LIMIT + 1; i++) {
          writes.push(
            (await writer.post('/memories/add', { content: `note ${i}`, agent_id: 'writer' })).status,
          );
        }
        assert.deepEqual(writes, [200, 200, 200, 200, 429]);
      });
    } else {
      it('each process counts on its own (what REDIS_URL is for)', async () => {
        await awayFromWindowEdge();
        const statuses: number[] = [];
        for (let i = 0; i < AGENT_LIMIT + 1; i++) statuses.push((await query(one, 'noisy')).status);
        for (let i = 0; i < AGENT_LIMIT + 1; i++) statuses.push((await query(two, 'noisy')).status);
        assert.deepEqual(statuses, [200, 200, 200, 200, 429, 200, 200, 200, 200, 429]);
      });
    }
  });
}
