import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { EmbeddingError, HASH_MODEL, HashEmbedder, vectorLiteral } from '../src/index.ts';

const embedder = new HashEmbedder();
const dot = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: readonly number[]) => Math.sqrt(dot(a, a));
const sim = (a: string, b: string) => dot(embedder.embedText(a), embedder.embedText(b));

/** Memories ranked by similarity to the query, best first. */
function rank(query: string, memories: readonly string[]): string[] {
  const q = embedder.embedText(query);
  return [...memories].sort((a, b) => dot(q, embedder.embedText(b)) - dot(q, embedder.embedText(a)));
}

describe('HashEmbedder', () => {
  it('describes its space', () => {
    assert.deepEqual(embedder.space, { provider: 'hash', model: 'engram-hash-v1', dimensions: 384 });
    assert.equal(HASH_MODEL, 'engram-hash-v1');
    assert.equal(new HashEmbedder({ dimensions: 64 }).space.dimensions, 64);
  });

  it('refuses unusable dimensions', () => {
    for (const dimensions of [0, 1, 2.5, -3, NaN, 100_000]) {
      assert.throws(() => new HashEmbedder({ dimensions }), EmbeddingError);
    }
  });

  it('is deterministic, across instances too', async () => {
    const text = 'The deploy failed with error E1234 in payments';
    const a = embedder.embedText(text);
    assert.deepEqual(embedder.embedText(text), a);
    assert.deepEqual(new HashEmbedder().embedText(text), a);
    assert.deepEqual(await embedder.embed([text, 'other', text]), [a, embedder.embedText('other'), a]);
  });

  it('keeps its space stable (bump HASH_MODEL when this digest changes)', () => {
    const v = embedder.embedText(
      'ERR_CONN_RESET in src/db/pool.ts after v1.9.0: the PaymentService deploy failed',
    );
    const digest = createHash('sha256').update(vectorLiteral(v)).digest('hex').slice(0, 16);
    assert.equal(
      digest,
      GOLDEN_DIGEST,
      'the embedding space changed: bump HASH_MODEL and update GOLDEN_DIGEST',
    );
  });

  it('returns unit vectors of the configured size', () => {
    const small = new HashEmbedder({ dimensions: 32 });
    for (const text of ['x', 'hello world', 'the of and', 'Привет мир 😀', '我喜欢蓝色', 'a '.repeat(5000)]) {
      const v = small.embedText(text);
      assert.equal(v.length, 32);
      assert.ok(Math.abs(norm(v) - 1) < 1e-9, text);
      assert.ok(v.every(Number.isFinite));
    }
  });

  it('embeds featureless text to the reserved unit vector, never a zero vector', () => {
    const reserved = embedder.embedText('');
    assert.equal(reserved[383], 1);
    assert.equal(norm(reserved), 1);
    for (const text of ['   ', '\n\t', '!!! ... ???', '—'])
      assert.deepEqual(embedder.embedText(text), reserved);
    assert.equal(sim('', 'payments deploy'), 0, 'no feature uses the reserved dimension');
    assert.ok(embedder.embedText('hello').every((x, i) => i < 383 || x === 0));
  });

  it('keeps stop-word-only text meaningful', () => {
    const v = embedder.embedText('it is what it is');
    assert.equal(v[383], 0);
    assert.ok(sim('it is what it is', 'what is it') > 0.5);
  });

  it('puts similar texts closer than unrelated ones', () => {
    const a = 'the deploy failed with error E1234 in payments';
    const b = 'payment deploy error E1234';
    const c = 'my favourite colour is blue';
    assert.ok(sim(a, b) > 0.5, `similar: ${sim(a, b)}`);
    assert.ok(Math.abs(sim(a, c)) < 0.1, `unrelated: ${sim(a, c)}`);
    assert.ok(Math.abs(sim(b, c)) < 0.1, `unrelated: ${sim(b, c)}`);
  });

  it('lets a rare exact token outweigh several shared common words', () => {
    const withCode = 'E1234 seen again during checkout';
    const commonWords = [
      'the deploy failed with an error in the staging cluster',
      'deploy error: the task failed again',
      'error when the user deploy failed',
    ];
    assert.equal(rank('E1234', [...commonWords, withCode])[0], withCode);
    assert.equal(rank('deploy failed with error E1234', [...commonWords, withCode])[0], withCode);
  });

  it('ranks by rarity even without identifiers: long specific words over short common ones', () => {
    const ranked = rank('kubernetes ingress certificate renewal', [
      'we need to make sure the new one works',
      'certificate renewal for the ingress',
    ]);
    assert.equal(ranked[0], 'certificate renewal for the ingress');
  });

  it('ignores case and compatibility forms', () => {
    assert.deepEqual(embedder.embedText('ＥＲＲＯＲ Ｅ１２３４'), embedder.embedText('error e1234'));
    assert.deepEqual(embedder.embedText('Payments DEPLOY'), embedder.embedText('payments deploy'));
  });

  it('folds English plurals and matches other inflections and typos through character trigrams', () => {
    assert.ok(sim('payments', 'payment') > 0.99);
    assert.ok(sim('policies failed', 'policy failed') > 0.99);
    assert.ok(sim('deploying', 'deployed') > 0.08, `inflection: ${sim('deploying', 'deployed')}`);
    assert.ok(sim('deployment', 'deploymnet') > 0.08, `typo: ${sim('deployment', 'deploymnet')}`);
    assert.ok(Math.abs(sim('deployment', 'colour')) < 0.03);
    assert.equal(
      rank('deploying payments', ['colour of the sky', 'payment deployed'])[0],
      'payment deployed',
    );
  });

  it('matches the pieces of identifiers, paths and camelCase names', () => {
    const memories = [
      'ERR_CONN_RESET while calling the ledger',
      'the ledger team meets on fridays',
      'src/db/pool.ts leaks connections under load',
      'PaymentService times out on cold start',
    ];
    assert.equal(rank('conn reset', memories)[0], memories[0]);
    assert.equal(rank('pool.ts', memories)[0], memories[2]);
    assert.equal(rank('payment service timeout', memories)[0], memories[3]);
  });

  it('splits CJK text into character bigrams', () => {
    assert.ok(sim('我喜欢蓝色', '蓝色很好看') > 0.1);
    assert.ok(Math.abs(sim('我喜欢蓝色', 'payments deploy')) < 0.1);
  });
});

const GOLDEN_DIGEST = 'b9e520ec59617e57';
