import assert from 'node:assert/strict';
import { loadEngramConfig } from '@engram/config';
import { retrievalConfig } from '../src/index.ts';

describe('retrieval-ranking settings (its config slice)', () => {
  it('reads one bounded lexical round by default, and until exact with LEXICAL_EXACT=true', () => {
    assert.equal(retrievalConfig(loadEngramConfig({})).lexicalRounds, 1);
    assert.equal(retrievalConfig(loadEngramConfig({ LEXICAL_EXACT: 'true' })).lexicalRounds, Infinity);
  });

  it('refuses to start on a ranking weight outside [0, 1], naming the setting', () => {
    assert.throws(() => retrievalConfig(loadEngramConfig({ RANKING_W_TRUST: '1.5' })), /RANKING_W_TRUST/);
    assert.throws(
      () => retrievalConfig(loadEngramConfig({ RANKING_W_RECENCY: 'high' })),
      /RANKING_W_RECENCY/,
    );
  });
});
