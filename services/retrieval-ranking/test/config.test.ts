import assert from 'node:assert/strict';
import { loadEngramConfig } from '@engram/config';
import { retrievalConfig } from '../src/index.ts';

describe('retrieval-ranking settings (its config slice)', () => {
  it('reads one bounded lexical round by default, and until exact with LEXICAL_EXACT=true', () => {
    assert.equal(retrievalConfig(loadEngramConfig({})).lexicalRounds, 1);
    assert.equal(retrievalConfig(loadEngramConfig({ LEXICAL_EXACT: 'true' })).lexicalRounds, Infinity);
  });

  it('takes ENABLE_TRUST_WEIGHTED_RANKING and the RANKING_W_* weights as set', () => {
    const { ranking } = retrievalConfig(
      loadEngramConfig({
        ENABLE_TRUST_WEIGHTED_RANKING: 'true',
        RANKING_W_SIMILARITY: '0.5',
        RANKING_W_TRUST: '0.2',
        RANKING_W_EFFECTIVENESS: '0.1',
        RANKING_W_RECENCY: '0.1',
        RANKING_W_PROVENANCE: '0.1',
      }),
    );
    assert.deepEqual(ranking, {
      enabled: true,
      weights: { similarity: 0.5, trust: 0.2, effectiveness: 0.1, recency: 0.1, provenance: 0.1 },
    });
  });
});
