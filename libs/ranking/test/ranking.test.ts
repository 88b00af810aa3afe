import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  bm25Idf,
  depthScore,
  estimateTokens,
  halfLifeDays,
  maxFusedScore,
  reciprocalRankFusion,
  relevanceScore,
  temporalDecay,
  trustScore,
} from '../src/index.ts';

const DAY = 86_400_000;

describe('ranking', () => {
  it('fuses ranked lists: found by both beats top of one, ties keep first-seen order', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['d', 'b', 'a'],
    ]);
    assert.deepEqual(
      fused.map((f) => f.id),
      ['a', 'b', 'd', 'c'],
    );
    assert.equal(fused[0]!.score, 1 / 61 + 1 / 63);
    assert.deepEqual(
      reciprocalRankFusion([['x'], ['y']]).map((f) => f.id),
      ['x', 'y'],
    );
  });

  it('weights the lists, and gives equal scores in one list one rank', () => {
    const lex = [
      { id: 'twin-a', score: 2 },
      { id: 'twin-b', score: 2 },
      { id: 'other', score: 1 },
    ];
    const fused = reciprocalRankFusion([['twin-b', 'other', 'twin-a'], lex], 3, [0.1, 0.9]);
    // Tied in the lexical list, the twins are ordered by the vector list alone.
    assert.deepEqual(
      fused.map((f) => f.id),
      ['twin-b', 'twin-a', 'other'],
    );
    assert.equal(fused[1]!.score, 0.1 / 6 + 0.9 / 4);
    assert.equal(fused[2]!.score, 0.1 / 5 + 0.9 / 6);
    assert.equal(maxFusedScore([0.1, 0.9], 3), 1 / 4);
  });

  it('halves the decay after one half-life, by type', () => {
    assert.equal(temporalDecay('episodic', 0), 1);
    assert.ok(Math.abs(temporalDecay('episodic', 7 * DAY) - 0.5) < 1e-12);
    assert.ok(Math.abs(temporalDecay('procedural', 365 * DAY) - 0.5) < 1e-12);
    assert.ok(temporalDecay('episodic', 30 * DAY) < temporalDecay('control', 30 * DAY));
    assert.equal(temporalDecay('standard', -5 * DAY), 1);
    assert.equal(halfLifeDays('no-such-type'), 90);
  });

  it('gives missing provenance the neutral prior 0.5 and spaces trust labels evenly', () => {
    assert.equal(depthScore(undefined), 0.5);
    assert.equal(depthScore(0), 1);
    assert.ok(depthScore(3) < depthScore(1));
    assert.ok(
      trustScore('system') > trustScore('internal') && trustScore('internal') > trustScore('untrusted'),
    );
    assert.deepEqual(
      ['untrusted', 'unknown', 'internal', 'privileged', 'system', 'no-such-label'].map(trustScore),
      [0, 0.25, 0.5, 0.75, 1, 0],
    );
  });

  it('fuses signals with the configured weights', () => {
    const w = { similarity: 0.6, trust: 0.1, effectiveness: 0.15, recency: 0.1, provenance: 0.05 };
    const s = { similarity: 0.8, trust: 1, effectiveness: 0.5, recency: 1, provenance: 1 };
    assert.ok(Math.abs(relevanceScore(w, s) - (0.48 + 0.1 + 0.075 + 0.1 + 0.05)) < 1e-12);
  });

  it('weighs a rarer term higher (idf decreasing in df, always positive)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 1_000_000 }), (n, d) => {
        const df = Math.min(d, n - 1);
        return bm25Idf(n, df) > bm25Idf(n, df + 1) && bm25Idf(n, df + 1) > 0;
      }),
    );
  });

  it('estimates tokens by characters or words, whichever is larger', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens('abcd'), 2); // one word: ceil(1 / 0.75) = 2
    assert.equal(estimateTokens('x'.repeat(400)), 100);
    assert.equal(estimateTokens('a b c d e f'), 8);
    assert.equal(estimateTokens('\u{1F600}'.repeat(8)), 2);
  });
});
