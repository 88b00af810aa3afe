import { strict as assert } from 'node:assert';
import { HashEmbedder, OpenAiEmbedder, type EmbeddingError } from '@engram/embeddings';
import { EmbeddingStandIn, STANDIN_LATENT_DIMENSIONS, standInTopic, standInVector } from '@engram/testing';
import { memoryText } from '../../scripts/bench/retrieval/corpus.ts';

const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/**
 * Participation ratio of the vectors' covariance, (sum of eigenvalues)^2 / sum of squared
 * eigenvalues: about the number of directions the variance spreads over. Computed from the
 * centred Gram matrix, which has the same non-zero eigenvalues.
 */
function participationRatio(vs: readonly ArrayLike<number>[]): number {
  const n = vs.length;
  const d = vs[0]!.length;
  const mean = new Float64Array(d);
  for (const v of vs) for (let i = 0; i < d; i++) mean[i]! += v[i]! / n;
  const c = vs.map((v) => Float64Array.from({ length: d }, (_, i) => v[i]! - mean[i]!));
  let trace = 0;
  let frobenius = 0;
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++) {
      const g = dot(c[a]!, c[b]!);
      if (a === b) trace += g;
      frobenius += g * g;
    }
  return (trace * trace) / frobenius;
}

/** Mean cosine of pairs (i, i + n/2): texts with nothing in particular in common. */
function meanUnrelatedCosine(vs: readonly ArrayLike<number>[]): number {
  const h = Math.floor(vs.length / 2);
  let s = 0;
  for (let i = 0; i < h; i++) s += dot(vs[i]!, vs[i + h]!);
  return s / h;
}

/** Made-up seven-letter words, grouped by the stand-in's topic of each. */
function wordsByTopic(): Map<number, string[]> {
  const out = new Map<number, string[]>();
  let seed = 12345;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed >>> 8;
  };
  for (let i = 0; i < 6000; i++) {
    const w = Array.from({ length: 7 }, () => String.fromCharCode(97 + (next() % 26))).join('');
    const t = standInTopic(w);
    out.set(t, [...(out.get(t) ?? []), w]);
  }
  return out;
}

describe('embedding stand-in (OpenAI-compatible, sentence-embedding geometry)', () => {
  let server: EmbeddingStandIn;
  before(async () => {
    server = await EmbeddingStandIn.start();
  });
  after(() => server.close());

  it('serves the production openai embedder: batches, order, model dimensions, the same numbers', async () => {
    for (const [model, dims] of [
      ['text-embedding-3-small', 1536],
      ['standin-384', 384],
    ] as const) {
      const embedder = new OpenAiEmbedder({ baseUrl: server.baseUrl, model, dimensions: dims, apiKey: 'k' });
      const texts = Array.from({ length: 70 }, (_, i) => memoryText(i)); // two batches of at most 64
      const vectors = await embedder.embed(texts);
      assert.equal(vectors.length, 70);
      for (const [i, v] of vectors.entries()) {
        assert.equal(v.length, dims);
        const want = standInVector(texts[i]!, dims);
        assert.ok(Math.abs(dot(v, want) - 1) < 1e-5, `vector ${i} is the stand-in's vector for its text`);
      }
    }
  });

  it('answers exactly the OpenAI wire shape, float and base64, and OpenAI-shaped errors', async () => {
    const post = async (body: unknown) => {
      const res = await fetch(`${server.baseUrl}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const float = await post({
      model: 'text-embedding-3-small',
      input: 'the cache is cold',
      dimensions: 256,
    });
    assert.equal(float.status, 200);
    assert.equal(float.body.object, 'list');
    assert.equal(float.body.model, 'text-embedding-3-small');
    const usage = float.body.usage as { prompt_tokens: number; total_tokens: number };
    assert.ok(usage.prompt_tokens > 0 && usage.total_tokens === usage.prompt_tokens);
    const [item] = float.body.data as { object: string; index: number; embedding: number[] }[];
    assert.equal(item!.object, 'embedding');
    assert.equal(item!.index, 0);
    assert.equal(item!.embedding.length, 256);
    const b64 = await post({
      model: 'text-embedding-3-small',
      input: ['the cache is cold'],
      dimensions: 256,
      encoding_format: 'base64',
    });
    const raw = Buffer.from((b64.body.data as { embedding: string }[])[0]!.embedding, 'base64');
    const decoded = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
    assert.deepEqual(Array.from(decoded), item!.embedding);
    const bad = await post({ model: 'text-embedding-3-small', input: [] });
    assert.equal(bad.status, 400);
    const error = bad.body.error as { message: string; type: string; param: string | null };
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.param, 'input');
    // The embedder checks the size: a stand-in answering 1536 to a 384-dimension configuration is an error.
    const wrong = new OpenAiEmbedder({
      baseUrl: server.baseUrl,
      model: 'text-embedding-3-small',
      dimensions: 384,
    });
    await assert.rejects(wrong.embed(['x']), (err: EmbeddingError) => err.kind === 'DIMENSION_MISMATCH');
  });

  it('is deterministic: a text always gets the same vector, another text another one', () => {
    const a = standInVector('Deploys of payments fail with E4711', 384);
    assert.deepEqual(a, standInVector('Deploys of payments fail with E4711', 384));
    assert.ok(dot(a, standInVector('Deploys of payments fail with E4712', 384)) < 1 - 1e-6);
  });

  for (const dims of [384, 1536]) {
    it(`has low intrinsic dimension and a common direction, unlike the hash embedder (${dims} dimensions)`, async () => {
      const texts = Array.from({ length: 300 }, (_, i) => memoryText(i * 37));
      const stand = texts.map((t) => standInVector(t, dims));
      const hash = await new HashEmbedder({ dimensions: 384 }).embed(texts);
      const prStand = participationRatio(stand);
      const prHash = participationRatio(hash);
      assert.ok(prStand < STANDIN_LATENT_DIMENSIONS, `stand-in participation ratio ${prStand}`);
      assert.ok(prStand < prHash / 2, `stand-in ${prStand} vs hash ${prHash}`);
      const cosStand = meanUnrelatedCosine(stand);
      const cosHash = meanUnrelatedCosine(hash);
      assert.ok(cosStand > 0.05 && cosStand > 2 * cosHash, `unrelated cosine ${cosStand} vs hash ${cosHash}`);
    });
  }

  it('clusters texts by topic even without shared words, where the hash embedder sees nothing', async () => {
    const byTopic = [...wordsByTopic().values()].filter((ws) => ws.length >= 40).slice(0, 6);
    assert.equal(byTopic.length, 6);
    // 6 texts per topic, each of 6 words no other text uses.
    const texts: { topic: number; text: string }[] = [];
    byTopic.forEach((ws, topic) => {
      for (let k = 0; k < 6; k++) texts.push({ topic, text: ws.slice(k * 6, k * 6 + 6).join(' ') });
    });
    const separation = (vs: readonly ArrayLike<number>[]) => {
      let same = 0;
      let sameN = 0;
      let other = 0;
      let otherN = 0;
      let nnSame = 0;
      for (let a = 0; a < vs.length; a++) {
        let best = -Infinity;
        let bestTopic = -1;
        for (let b = 0; b < vs.length; b++) {
          if (a === b) continue;
          const c = dot(vs[a]!, vs[b]!);
          if (texts[a]!.topic === texts[b]!.topic) {
            same += c;
            sameN++;
          } else {
            other += c;
            otherN++;
          }
          if (c > best) [best, bestTopic] = [c, texts[b]!.topic];
        }
        if (bestTopic === texts[a]!.topic) nnSame++;
      }
      return { gap: same / sameN - other / otherN, nnSame: nnSame / vs.length };
    };
    const stand = separation(texts.map((t) => standInVector(t.text, 384)));
    const hash = separation(await new HashEmbedder({ dimensions: 384 }).embed(texts.map((t) => t.text)));
    assert.ok(stand.gap > 0.1, `stand-in same-topic minus other-topic cosine ${stand.gap}`);
    assert.ok(stand.nnSame >= 0.9, `stand-in nearest neighbour of the same topic ${stand.nnSame}`);
    assert.ok(hash.gap < stand.gap / 4, `hash gap ${hash.gap}`);
  });

  it('puts a text nearer to a variant of itself than to other texts of its kind', () => {
    const base = 'The payments service times out with E4711 when the connection pool is exhausted';
    const variant = 'The payments service times out with E4711 when the database pool is exhausted';
    const v = standInVector(base, 1536);
    const near = dot(v, standInVector(variant, 1536));
    const others = Array.from({ length: 50 }, (_, i) => dot(v, standInVector(memoryText(i * 3), 1536)));
    assert.ok(near > Math.max(...others), `variant ${near} vs best other ${Math.max(...others)}`);
  });
});
