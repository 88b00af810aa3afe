import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { displayPrefix, generateApiKey, hashApiKey } from '@engram/auth';
import { loadEngramConfig } from '@engram/config';
import { appendEvent, eventsMigrations } from '@engram/events';
import { createClient, unary } from '@engram/grpc-kit';
import { signV2 } from '@engram/integrity';
import { createLogger } from '@engram/logger';
import { memoryStoreMigrations } from '@engram/memory-store';
import { configuredPeers, serveServices, ServiceProcess } from '@engram/platform';
import {
  SecurityAdminServiceClient,
  type ListAuditEventsRequest,
  type ListFlaggedRequest,
  type ScanRequest,
  type VerifyRequest,
} from '@engram/proto/engram/security/v1/security';
import { createTestDatabase, ENGINES, type TestDatabase } from '@engram/testing';
import { composeSecurityAdmin } from '../src/index.ts';

/**
 * security-admin as its own process would run it: its compose (composeSecurityAdmin) on a process
 * of its own, served on gRPC, against a real database that memory-store's migrations made. Rows are
 * written directly; the routes are called with the instance's system key and with a key that is not
 * an administrator's.
 */

const NS = 'sec';

for (const engine of ENGINES) {
  describe(`security-admin handlers through its factory (${engine})`, function () {
    this.timeout(120_000);
    const systemKey = 'egk_test_' + randomBytes(24).toString('base64url');
    const integrityKey = randomBytes(32).toString('base64url');
    const internalKey = generateApiKey();
    let dataDir: string;
    let database: TestDatabase | undefined;
    let proc: ServiceProcess | undefined;
    let client: SecurityAdminServiceClient;
    const ids = { signed: randomUUID(), tampered: randomUUID(), clean: randomUUID(), other: randomUUID() };

    const md = (key: string) => {
      const m = new Metadata();
      m.set('authorization', `Bearer ${key}`);
      return m;
    };
    const rpc = {
      listFlagged: (req: ListFlaggedRequest, key = systemKey) =>
        unary(client.listFlagged.bind(client), req, md(key)),
      verify: (req: VerifyRequest, key = systemKey) => unary(client.verify.bind(client), req, md(key)),
      listAuditEvents: (req: ListAuditEventsRequest, key = systemKey) =>
        unary(client.listAuditEvents.bind(client), req, md(key)),
      getConfig: (key = systemKey) => unary(client.getConfig.bind(client), {}, md(key)),
      scan: (req: ScanRequest, key = systemKey) => unary(client.scan.bind(client), req, md(key)),
    };
    const code = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (e) {
        return (e as ServiceError).code;
      }
      return status.OK;
    };

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'engram-security-admin-'));
      database = engine === 'postgres' ? await createTestDatabase() : undefined;
      const config = loadEngramConfig({
        ENGRAM_DATA_DIR: dataDir,
        ENGRAM_GRPC_PORT: '0',
        SERVICE_API_KEY: systemKey,
        SERVICE_INTEGRITY_KEY: integrityKey,
        ENGRAM_INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
        DATABASE_POOL_MAX: '3',
        ...(database ? { DATABASE_URL: database.url, EVENTS_DELIVERY: 'in-process' } : {}),
      });
      proc = await ServiceProcess.open({
        config,
        service: 'security-admin',
        logger: createLogger({ service: 'test', level: 'silent' }),
      });
      // memory-store owns these tables (and the outbox's); alone here, this process makes them.
      const { knex } = await proc.database(eventsMigrations, memoryStoreMigrations);
      await knex('projects').insert({ project_id: 'default', name: 'default' }).onConflict().ignore();
      await knex('api_keys').insert({
        key_id: randomUUID(),
        project_id: 'default',
        name: 'an internal agent',
        key_hash: hashApiKey(internalKey),
        prefix: displayPrefix(internalKey),
        trust_level: 'internal',
        any_agent: true,
      });
      const memory = (id: string, over: Record<string, unknown>) => {
        const row = {
          id,
          project_id: 'default',
          namespace: NS,
          agent_id: 'agent-a',
          content: `memory ${id}`,
          memory_type: 'fact',
          scope: 'global',
          trust_level: 'verified',
          ...over,
        } as Record<string, unknown> & {
          project_id: string;
          agent_id: string;
          scope: string;
          trust_level: string;
          content: string;
        };
        return { ...row, content_key: row.content, integrity_hash: signV2(integrityKey, row) };
      };
      await knex('memories').insert([
        memory(ids.signed, { content_flags: ['pii'], created_at: '2026-03-01T10:00:00.000001Z' }),
        {
          // Signed, then its content edited in the database: the signature no longer verifies.
          ...memory(ids.tampered, { content_flags: ['secret'], created_at: '2026-03-01T10:00:00.000002Z' }),
          content: 'edited behind the store',
        },
        memory(ids.clean, { created_at: '2026-03-01T10:00:00.000003Z' }),
        memory(ids.other, { project_id: 'elsewhere', content_flags: ['pii'] }),
      ]);
      for (const [i, type] of ['MEMORY_CREATED', 'VOTED', 'MEMORY_CREATED'].entries())
        await appendEvent(knex, {
          eventType: type,
          projectId: 'default',
          agentId: `agent-${i}`,
          memoryId: ids.signed,
          apiKeyId: 'k',
          details: { n: i },
        });
      await appendEvent(knex, {
        eventType: 'MEMORY_CREATED',
        projectId: 'elsewhere',
        agentId: 'x',
        apiKeyId: 'k',
      });
      const served = await serveServices(proc, await composeSecurityAdmin(proc, configuredPeers(config)));
      client = createClient(SecurityAdminServiceClient, `127.0.0.1:${served.port}`);
    });
    after(async () => {
      client?.close();
      await proc?.runtime.shutdown();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('lists flagged memories of the caller’s project newest first, page by page, each marked valid or not', async () => {
      const first = await rpc.listFlagged({ cursor: '', limit: 1, namespace: NS });
      assert.deepEqual(
        first.memories.map((m) => [m.id, m.integrity_status]),
        [[ids.tampered, 'invalid']],
      );
      assert.notEqual(first.next_cursor, '');
      const second = await rpc.listFlagged({ cursor: first.next_cursor, limit: 1, namespace: NS });
      assert.deepEqual(
        second.memories.map((m) => [m.id, m.integrity_status, m.integrity_format]),
        [[ids.signed, 'valid', 'v2']],
      );
      assert.deepEqual(second.memories[0]!.content_flags, ['pii']);
      assert.equal(second.next_cursor, '');
      const all = await rpc.listFlagged({ cursor: '' });
      assert.deepEqual(
        all.memories.map((m) => m.id),
        [ids.tampered, ids.signed],
      );
      assert.deepEqual((await rpc.listFlagged({ cursor: '', namespace: 'none' })).memories, []);
    });

    it('verifies one memory of the project, and answers 404 for any other id', async () => {
      assert.deepEqual(await rpc.verify({ memory_id: ids.signed }), {
        memory_id: ids.signed,
        has_hash: true,
        valid: true,
        format: 'v2',
      });
      const tampered = await rpc.verify({ memory_id: ids.tampered.toUpperCase() });
      assert.equal(tampered.memory_id, ids.tampered);
      assert.equal(tampered.valid, false);
      assert.equal(tampered.has_hash, true);
      for (const memory_id of [ids.other, randomUUID(), 'not-a-uuid'])
        assert.equal(await code(rpc.verify({ memory_id })), status.NOT_FOUND, memory_id);
    });

    it('reads the project’s audit log newest first, filtered and paged', async () => {
      const created = await rpc.listAuditEvents({
        cursor: '',
        event_type: 'MEMORY_CREATED',
        limit: 1,
      });
      assert.deepEqual(
        created.events.map((e) => [e.event_type, e.agent_id, e.memory_id, e.details]),
        [['MEMORY_CREATED', 'agent-2', ids.signed, { n: 2 }]],
      );
      const next = await rpc.listAuditEvents({
        cursor: created.next_cursor,
        event_type: 'MEMORY_CREATED',
        limit: 1,
      });
      assert.deepEqual(
        next.events.map((e) => e.agent_id),
        ['agent-0'],
      );
      const all = await rpc.listAuditEvents({ cursor: '' });
      assert.deepEqual(
        all.events.map((e) => e.agent_id),
        ['agent-2', 'agent-1', 'agent-0'],
        'only the caller’s project',
      );
      assert.ok(all.events.every((e) => e.project_id === 'default'));
    });

    it('reports the effective security configuration', async () => {
      const config = await rpc.getConfig();
      assert.deepEqual(config.integrity, {
        read_mode: 'drop',
        require_signed: false,
        signature_format: 'v2',
        verified_formats: ['v1', 'v2'],
        key_source: 'SERVICE_INTEGRITY_KEY',
      });
      assert.notEqual(config.policy_version, '');
    });

    it('refuses a key that is not an administrator’s on every route, and a missing key', async () => {
      const routes = {
        listFlagged: () => rpc.listFlagged({ cursor: '' }, internalKey),
        verify: () => rpc.verify({ memory_id: ids.signed }, internalKey),
        listAuditEvents: () => rpc.listAuditEvents({ cursor: '' }, internalKey),
        getConfig: () => rpc.getConfig(internalKey),
        scan: () => rpc.scan({ content: 'x', trust_level: '', metadata: undefined }, internalKey),
      };
      for (const [name, route] of Object.entries(routes))
        assert.equal(await code(route()), status.PERMISSION_DENIED, name);
      assert.equal(await code(rpc.listFlagged({ cursor: '' }, 'egk_not_a_key')), status.UNAUTHENTICATED);
    });
  });
}
