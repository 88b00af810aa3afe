import assert from 'node:assert/strict';
import { mulberry32 } from '../src/index.ts';

describe('mulberry32', () => {
  it('draws the same sequence as before the copies were merged (the trained model depends on it)', () => {
    const r = mulberry32(1515);
    assert.deepEqual([r(), r(), r()], [0.16343899886123836, 0.9485675001051277, 0.7789451458957046]);
  });

  it('repeats for a seed, differs between seeds, and stays in [0, 1)', () => {
    const draw = (seed: number) => {
      const r = mulberry32(seed);
      return Array.from({ length: 1000 }, () => r());
    };
    assert.deepEqual(draw(7), draw(7));
    assert.notDeepEqual(draw(7), draw(8));
    for (const x of draw(42)) assert.ok(x >= 0 && x < 1);
  });
});
