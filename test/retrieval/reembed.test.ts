import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { compiledEntry, createTestDatabase, type TestDatabase } from '@engram/testing';
import { add, NO_RATE_LIMITS, search } from './support.ts';
import { TINY_HIDDEN, writeTinyModel } from './tiny-onnx-model.ts';
import { startTestEngram } from '@engram/all-in-one/testing';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

describe('engram reembed', function () {
  this.timeout(180_000);
  let db: TestDatabase;
  let root: string;
  const integrity = { SERVICE_INTEGRITY_KEY: randomBytes(32).toString('base64url') };
  const local = () => ({
    EMBEDDING_PROVIDER: 'local',
    EMBEDDING_MODEL: 'engram-tiny',
    EMBEDDING_MODEL_PATH: join(root, 'engram-tiny'),
    EMBEDDING_DIMENSIONS: String(TINY_HIDDEN),
  });
  const cli = (env: Record<string, string>) =>
    run(process.execPath, [...compiledEntry('services/cli', 'engram'), 'reembed'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: db.url,
        ENGRAM_DATA_DIR: root,
        ...env,
      },
    });

  before(async () => {
    db = await createTestDatabase();
    root = mkdtempSync(join(tmpdir(), 'engram-reembed-'));
    writeTinyModel(join(root, 'engram-tiny'), [
      'deploy',
      'fails',
      'payments',
      'canary',
      'coffee',
      'oat',
      'milk',
    ]);
  });
  after(async () => {
    await db?.drop();
    rmSync(root, { recursive: true, force: true });
  });

  it('moves a hash store to a local model: the store starts on the new space and queries work', async () => {
    const hashStore = await startTestEngram('pglite', {
      ...NO_RATE_LIMITS,
      ...integrity,
      DATABASE_URL: db.url,
    });
    const ids: string[] = [];
    try {
      for (let i = 0; i < 7; i++) {
        ids.push(
          await add(hashStore.admin, {
            content: `Payments deploy fails when the canary is unhealthy (${i})`,
            agent_id: 'a',
          }),
        );
      }
      ids.push(await add(hashStore.admin, { content: 'Oat milk coffee', agent_id: 'a' }));
    } finally {
      await hashStore.stop();
    }
    const { stdout, stderr } = await cli({ ...local(), ...integrity });
    assert.match(stdout, /8 memories moved from hash\/engram-hash-v1\/384-d to local\/engram-tiny\/16-d/);
    assert.match(stderr, /100% 8\/8/);
    const again = await cli({ ...local(), ...integrity });
    assert.match(again.stdout, /already in local\/engram-tiny\/16-d; nothing to do/);

    const moved = await startTestEngram('pglite', {
      ...NO_RATE_LIMITS,
      ...integrity,
      ...local(),
      DATABASE_URL: db.url,
    });
    try {
      const rows = await search(moved.admin, '/memories/query', {
        query: 'oat milk coffee',
        agent_id: 'a',
        top_k: 3,
      });
      assert.equal(rows[0]?.id, ids[7], 'vectors are the new model’s, signatures still verify');
      const hybrid = await search(moved.admin, '/memories/hybrid_query', {
        query: 'canary',
        agent_id: 'a',
        top_k: 10,
      });
      // Found by both channels first, then the one only the vector channel returns.
      assert.deepEqual(
        hybrid.map((m) => m.content.includes('canary')),
        [true, true, true, true, true, true, true, false],
      );
    } finally {
      await moved.stop();
    }
    // The column is re-typed and the HNSW index rebuilt on it.
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const col = await c.query(
        `select format_type(atttypid, atttypmod) as t, attstorage as s from pg_attribute where attrelid = 'memories'::regclass and attname = 'embedding'`,
      );
      assert.equal(col.rows[0]?.t, `vector(${TINY_HIDDEN})`);
      assert.equal(col.rows[0]?.s, 'm', 'the swapped column keeps its vectors on the heap page');
      const idx = await c.query(
        `select indexdef from pg_indexes where indexname = 'memories_embedding_hnsw'`,
      );
      assert.match(String(idx.rows[0]?.indexdef), /hnsw \(embedding vector_cosine_ops\)/);
      // The new space brings its provider's HNSW settings (pinned with it, index built with them).
      const space = await c.query(
        'select hnsw_m as m, hnsw_ef_construction as efc, hnsw_ef_search as ef from embedding_space',
      );
      assert.deepEqual(space.rows[0], { m: 16, efc: 64, ef: 200 });
      assert.match(String(idx.rows[0]?.indexdef), /m='?16'?, ef_construction='?64'?/);
    } finally {
      await c.end();
    }
  });

  it('changes the HNSW settings of a store that stays in its space: ef_search recorded, m rebuilds the index', async () => {
    const efOnly = await cli({ ...local(), ...integrity, HNSW_EF_SEARCH: '90' });
    assert.match(
      efOnly.stdout,
      /stays in local\/engram-tiny\/16-d; HNSW settings moved from .*ef_search 200 to .*ef_search 90\n/,
    );
    const rebuilt = await cli({ ...local(), ...integrity, HNSW_M: '20' });
    assert.match(rebuilt.stdout, /m 20, ef_construction 64, ef_search 90; HNSW index rebuilt/);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const space = await c.query(
        'select hnsw_m as m, hnsw_ef_construction as efc, hnsw_ef_search as ef from embedding_space',
      );
      assert.deepEqual(space.rows[0], { m: 20, efc: 64, ef: 90 });
      const idx = await c.query(
        `select indexdef from pg_indexes where indexname = 'memories_embedding_hnsw'`,
      );
      assert.match(String(idx.rows[0]?.indexdef), /m='?20'?, ef_construction='?64'?/);
    } finally {
      await c.end();
    }
    const moved = await startTestEngram('pglite', {
      ...NO_RATE_LIMITS,
      ...integrity,
      ...local(),
      DATABASE_URL: db.url,
    });
    try {
      const rows = await search(moved.admin, '/memories/query', {
        query: 'oat milk coffee',
        agent_id: 'a',
        top_k: 3,
      });
      assert.ok(rows.length > 0, 'the rebuilt index answers');
    } finally {
      await moved.stop();
    }
  });

  it('refuses to run when the target model cannot be loaded, changing nothing', async () => {
    await assert.rejects(
      cli({
        ...integrity,
        EMBEDDING_PROVIDER: 'local',
        EMBEDDING_MODEL_PATH: join(root, 'missing'),
        EMBEDDING_DIMENSIONS: '16',
      }),
      (err: { code?: number; stderr?: string }) =>
        err.code === 2 && /could not be loaded/.test(err.stderr ?? ''),
    );
  });
});
