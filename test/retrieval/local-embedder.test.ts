import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddingError, LocalEmbedder, LocalModelUnavailableError } from '@engram/embeddings';
import { add, NO_RATE_LIMITS, search } from './support.ts';
import { TINY_HIDDEN, writeTinyModel } from './tiny-onnx-model.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const WORDS = [
  'deploy',
  'fails',
  'payments',
  'canary',
  'coffee',
  'oat',
  'milk',
  'flat',
  'white',
  'service',
  'the',
  'with',
  'unhealthy',
  'likes',
];
const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('local embeddings through transformers.js (offline, a tiny ONNX model built by the test)', function () {
  this.timeout(120_000);
  let root: string;
  let modelDir: string;

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'engram-onnx-'));
    modelDir = join(root, 'engram-tiny');
    writeTinyModel(modelDir, WORDS);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('loads the model from EMBEDDING_MODEL_PATH and embeds in batches, unit-length and deterministic', async () => {
    const e = await LocalEmbedder.load({
      model: 'engram-tiny',
      modelPath: modelDir,
      dimensions: TINY_HIDDEN,
      batchSize: 4,
    });
    assert.deepEqual(e.space, { provider: 'local', model: 'engram-tiny', dimensions: TINY_HIDDEN });
    const texts = Array.from({ length: 11 }, (_, i) =>
      i % 2 === 0 ? 'deploy fails payments canary' : 'oat milk flat white coffee',
    );
    const batched = await e.embed(texts);
    assert.equal(batched.length, 11);
    for (const v of batched) {
      assert.equal(v.length, TINY_HIDDEN);
      assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
    }
    const [one] = await e.embed(['deploy fails payments canary']);
    assert.ok(cos(one!, batched[0]!) > 0.99999, 'a text embeds the same alone or in a batch');
    const [q] = await e.embed(['Payments deploy fails']);
    assert.ok(cos(q!, batched[0]!) > cos(q!, batched[1]!) + 0.2, 'shared words bring vectors together');
    const [empty] = await e.embed(['']);
    assert.ok(empty!.every((x) => Number.isFinite(x)));
  });

  it('refuses a model whose output size differs from EMBEDDING_DIMENSIONS', async () => {
    await assert.rejects(
      LocalEmbedder.load({ model: 'engram-tiny', modelPath: modelDir, dimensions: 384 }),
      (err: unknown) =>
        err instanceof EmbeddingError && err.kind === 'DIMENSION_MISMATCH' && /16-d/.test(err.message),
    );
  });

  it('reports missing model files as unavailable (never downloads)', async () => {
    await assert.rejects(
      LocalEmbedder.load({
        model: 'Xenova/all-MiniLM-L6-v2',
        cacheDir: join(root, 'empty-cache'),
        dimensions: 384,
      }),
      (err: unknown) => err instanceof LocalModelUnavailableError && /empty-cache/.test(err.message),
    );
  });

  describe('Engram on the local provider', () => {
    let t: TestEngram;
    before(async () => {
      t = await startTestEngram('pglite', {
        ...NO_RATE_LIMITS,
        EMBEDDING_PROVIDER: 'local',
        EMBEDDING_MODEL: 'engram-tiny',
        EMBEDDING_MODEL_PATH: modelDir,
        EMBEDDING_DIMENSIONS: String(TINY_HIDDEN),
      });
    });
    after(async () => {
      await t?.stop();
    });

    it('pins the local space and answers queries with the model’s vectors', async () => {
      const space = (await t.engram.db.knex('embedding_space').first()) as Record<string, unknown>;
      assert.deepEqual(
        [space.provider, space.model, space.dimensions],
        ['local', 'engram-tiny', TINY_HIDDEN],
      );
      const deploy = await add(t.admin, {
        content: 'The payments deploy fails when the canary is unhealthy',
        agent_id: 'a',
      });
      await add(t.admin, { content: 'Ana likes a flat white with oat milk', agent_id: 'a' });
      const rows = await search(t.admin, '/memories/query', {
        query: 'deploy fails',
        agent_id: 'a',
        top_k: 2,
      });
      assert.equal(rows[0]?.id, deploy);
      assert.ok(rows[0].score! > rows[1]!.score!);
    });
  });
});
