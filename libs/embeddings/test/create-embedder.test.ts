import assert from 'node:assert/strict';
import {
  createEmbedder,
  EmbeddingError,
  HashEmbedder,
  LOCAL_FALLBACK_WARNING,
  OpenAiEmbedder,
} from '../src/index.ts';
import { correctEmbeddingsHandler, startEmbeddingsServer } from './embeddings-server.ts';
import { recordingLogger } from './recording-logger.ts';

const base = { model: 'Xenova/all-MiniLM-L6-v2', dimensions: 384 } as const;

describe('createEmbedder', () => {
  it('hash -> the hash embedder with the configured dimensions', async () => {
    const embedder = await createEmbedder({ ...base, provider: 'hash', dimensions: 128 }, recordingLogger());
    assert.ok(embedder instanceof HashEmbedder);
    assert.deepEqual(embedder.space, { provider: 'hash', model: 'engram-hash-v1', dimensions: 128 });
  });

  it('local without model files -> a loud warning and the hash embedder', async () => {
    const logger = recordingLogger();
    const embedder = await createEmbedder({ ...base, provider: 'local' }, logger);
    assert.deepEqual(embedder.space, { provider: 'hash', model: 'engram-hash-v1', dimensions: 384 });
    const warnings = logger.lines.filter((l) => l.level === 'warn');
    assert.equal(warnings.length, 1);
    assert.equal(
      warnings[0]!.msg,
      'EMBEDDING_PROVIDER=local: the local model could not be loaded; falling back to the hash embedder',
    );
    assert.equal(warnings[0]!.msg, LOCAL_FALLBACK_WARNING);
    assert.equal(warnings[0]!.bindings['component'], 'embeddings');
  });

  it('openai -> an OpenAI-compatible embedder that works against the configured server', async () => {
    const server = await startEmbeddingsServer(correctEmbeddingsHandler(8));
    try {
      const settings = {
        provider: 'openai',
        model: 'nomic',
        dimensions: 8,
        baseUrl: server.baseUrl,
        apiKey: 'k',
      } as const;
      const embedder = await createEmbedder(settings, recordingLogger());
      assert.ok(embedder instanceof OpenAiEmbedder);
      assert.deepEqual(embedder.space, { provider: 'openai', model: 'nomic', dimensions: 8 });
      assert.equal((await embedder.embed(['text-0', 'text-1'])).length, 2);
      assert.equal(server.requests[0]!.authorization, 'Bearer k');
    } finally {
      await server.close();
    }
  });

  it('openai without a base URL -> a rejected promise naming the setting', async () => {
    await assert.rejects(
      createEmbedder({ ...base, provider: 'openai', apiKey: 'k' }, recordingLogger()),
      (err: unknown) =>
        err instanceof EmbeddingError &&
        err.kind === 'CONFIGURATION' &&
        err.message.includes('EMBEDDING_BASE_URL'),
    );
  });

  it('bad dimensions -> a rejected promise, not a throw', async () => {
    const pending = createEmbedder({ ...base, provider: 'hash', dimensions: 1 }, recordingLogger());
    await assert.rejects(pending, EmbeddingError);
  });
});
