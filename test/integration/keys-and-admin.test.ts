import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadEngramConfig } from '@engram/config';
import { startEmbedded } from '@engram/all-in-one';
import { createLogger } from '@engram/logger';
import { ApiClient, ENGINES } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`condition not met within ${timeoutMs} ms`);
}

for (const engine of ENGINES) {
  describe(`API keys and /admin (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    before(async () => {
      t = await startTestEngram(engine);
    });
    after(() => t?.stop());

    const cli = (...args: string[]) =>
      run(join(ROOT, 'scripts/engram'), [...args, '--json'], {
        env: { ...process.env, ENGRAM_GRPC_ADDR: t.grpcAddress, ENGRAM_API_KEY: t.adminKey },
      });

    it('engram keys create|list|revoke manages keys; a revoked key stops working within the cache delay', async () => {
      const created = JSON.parse(
        (await cli('keys', 'create', '--trust', 'internal', '--agent', 'cli-agent', '--name', 'from-cli'))
          .stdout,
      ) as {
        key_id: string;
        api_key: string;
      };
      const client = new ApiClient(t.baseUrl, created.api_key);
      const add = await client.post<{ id: string }>('/memories/add', { content: 'written with a CLI key' });
      assert.equal(add.status, 200, add.text);

      const listed = JSON.parse((await cli('keys', 'list')).stdout) as {
        keys: { key_id: string; bound_agent_id?: string; prefix: string }[];
      };
      const mine = listed.keys.find((k) => k.key_id === created.key_id);
      assert.equal(mine?.bound_agent_id, 'cli-agent');
      assert.ok(created.api_key.startsWith(mine.prefix));
      assert.ok(!JSON.stringify(listed).includes(created.api_key), 'the raw key is never listed');

      await cli('keys', 'revoke', created.key_id);
      await eventually(
        async () => (await client.post('/memories/query', { query: 'x' })).status === 401,
        8_000,
      );
    });

    it('stores only a hash of each key', async () => {
      const res = await t.admin.post<{ api_key: string; key_id: string }>('/admin/keys', {
        trust_level: 'internal',
        any_agent: true,
        name: 'hash-check',
      });
      const row = (await t.engram.db.knex('api_keys').where({ key_id: res.body.key_id }).first()) as Record<
        string,
        unknown
      >;
      assert.ok(!Object.values(row).some((v) => typeof v === 'string' && v.includes(res.body.api_key)));
      assert.match(String(row.key_hash), /^[0-9a-f]{64}$/);
    });

    it('GET /auth/whoami tells any key who it is, never the secret', async () => {
      const bound = await t.admin.createKey({ trust_level: 'untrusted', bound_agent_id: 'scout' });
      const me = await bound.get<Record<string, unknown>>('/auth/whoami');
      assert.equal(me.status, 200, me.text);
      assert.deepEqual(
        [me.body.project_id, me.body.trust_level, me.body.bound_agent_id, me.body.instance_admin],
        ['default', 'untrusted', 'scout', false],
      );
      assert.ok(!me.text.includes(String(bound.key)), 'the raw key is not echoed');
      const lists = await t.admin.createKey({ trust_level: 'internal', agent_ids: ['a1', 'a2'] });
      assert.deepEqual((await lists.get<{ agent_ids: string[] }>('/auth/whoami')).body.agent_ids, [
        'a1',
        'a2',
      ]);
      const admin = await t.admin.get<{ key_id: string; instance_admin: boolean }>('/auth/whoami');
      assert.deepEqual([admin.body.key_id, admin.body.instance_admin], ['bootstrap', true]);
      assert.equal(
        (await t.admin.withKey('egk_unknown_key_0123456789abcdef').get('/auth/whoami')).status,
        401,
      );
    });

    it('refuses an expired key', async () => {
      const expiring = await t.admin.createKey({
        trust_level: 'internal',
        any_agent: true,
        expires_at: new Date(Date.now() + 1500).toISOString(),
      });
      assert.equal((await expiring.post('/memories/query', { query: 'x' })).status, 200);
      await new Promise((r) => setTimeout(r, 1700));
      assert.equal((await expiring.post('/memories/query', { query: 'x' })).status, 401);
      const past = await t.admin.post<{ error: { reason: string } }>('/admin/keys', {
        trust_level: 'internal',
        any_agent: true,
        expires_at: '2001-01-01T00:00:00Z',
      });
      assert.equal(past.status, 400);
    });

    it('keeps /admin to system keys, and other projects to the instance administrator', async () => {
      const internal = await t.admin.createKey({ trust_level: 'internal', any_agent: true });
      const privileged = await t.admin.createKey({ trust_level: 'privileged' });
      for (const c of [internal, privileged]) {
        const res = await c.post<{ error: { reason: string } }>('/admin/keys', { trust_level: 'internal' });
        assert.equal(res.status, 403);
        assert.equal(res.body.error.reason, 'ADMIN_REQUIRED');
      }
      await t.admin.post('/admin/projects', { project_id: 'tenant-b' });
      const tenantAdmin = await t.admin.createKey({ trust_level: 'system', project_id: 'tenant-b' });
      assert.equal(
        (await tenantAdmin.post('/admin/keys', { trust_level: 'internal', any_agent: true })).status,
        200,
      );
      assert.equal(
        (await tenantAdmin.post('/admin/keys', { trust_level: 'internal', project_id: 'default' })).status,
        403,
      );
      assert.equal((await t.admin.post('/admin/projects', { project_id: 'tenant-b' })).status, 409);
      assert.equal(
        (
          await t.admin.post('/admin/keys', {
            trust_level: 'internal',
            any_agent: true,
            project_id: 'nowhere',
          })
        ).status,
        404,
      );
      assert.equal((await t.admin.post('/admin/keys', { trust_level: 'root' })).status, 400);
    });
  });
}

describe('first embedded start without SERVICE_API_KEY', function () {
  this.timeout(60_000);
  it('generates one system key, keeps it working across restarts, and never generates another', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engram-first-'));
    const config = loadEngramConfig({
      ENGRAM_DATA_DIR: dataDir,
      ENGRAM_HTTP_PORT: '0',
      ENGRAM_GRPC_PORT: '0',
      EMBEDDING_PROVIDER: 'hash',
      LOG_LEVEL: 'silent',
    });
    const logger = createLogger({ service: 't', level: 'silent' });
    try {
      const first = await startEmbedded(config, logger);
      const key = first.generatedKey;
      assert.match(String(key), /^egk_/);
      const api = new ApiClient(`http://127.0.0.1:${first.httpPort}`, key);
      const add = await api.post<{ id: string }>('/memories/add', {
        content: 'survives a restart',
        agent_id: 'a',
      });
      assert.equal(add.status, 200, add.text);
      await first.stop();

      const second = await startEmbedded(config, logger);
      assert.equal(second.generatedKey, undefined);
      const again = new ApiClient(`http://127.0.0.1:${second.httpPort}`, key);
      const got = await again.get<{ content: string }>(`/memories/${add.body.id}?agent_id=a`);
      assert.equal(got.status, 200, 'the memory and its signature survive the restart');
      assert.equal(got.body.content, 'survives a restart');
      await second.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
