import assert from 'node:assert/strict';
import fc from 'fast-check';
import { effectiveness01, effectivenessScore, NEUTRAL_PRIOR, to01 } from '../src/index.ts';

describe('effectiveness', () => {
  it('is (helpful - harmful) / (helpful + harmful + 1)', () => {
    assert.equal(effectivenessScore(0, 0), 0);
    assert.equal(effectivenessScore(1, 0), 0.5);
    assert.equal(effectivenessScore(3, 0), 0.75);
    assert.equal(effectivenessScore(0, 2), -2 / 3);
    assert.equal(effectivenessScore(2, 2), 0);
  });

  it('stays inside (-1, 1), rises with helpful votes and falls with harmful ones', () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.nat(10_000), (helpful, harmful) => {
        const e = effectivenessScore(helpful, harmful);
        assert.ok(e > -1 && e < 1);
        assert.ok(effectivenessScore(helpful + 1, harmful) > e);
        assert.ok(effectivenessScore(helpful, harmful + 1) < e);
      }),
    );
  });

  it('maps onto [0, 1] with the neutral prior 0.5 for an unvoted memory', () => {
    assert.equal(NEUTRAL_PRIOR, 0.5);
    assert.equal(effectiveness01(undefined), 0.5);
    assert.equal(effectiveness01({ helpful: 0, harmful: 0 }), 0.5);
    assert.equal(effectiveness01({ helpful: 3, harmful: 0 }), (3 / 4 + 1) / 2);
    assert.ok(effectiveness01({ helpful: 0, harmful: 2 }) < 0.5);
    assert.deepEqual([-1, 0, 1].map(to01), [0, 0.5, 1]);
  });
});
