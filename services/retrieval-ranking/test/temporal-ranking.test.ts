import assert from 'node:assert/strict';
import { reciprocalRankFusion } from '@engram/ranking';
import { fuseInTime, inIntervals, memoryDate } from '../src/domain/temporal-ranking.ts';

const FUSION = { k: 3, weights: [0.1, 0.9] };
const may = { start: new Date('2025-05-01T00:00:00Z'), end: new Date('2025-06-01T00:00:00Z') };
const dates: Record<string, Date> = {
  a: new Date('2025-03-10T00:00:00Z'),
  b: new Date('2025-05-09T00:00:00Z'),
  c: new Date('2025-06-03T00:00:00Z'),
  d: new Date('2025-05-31T23:59:59Z'),
};
const vector = ['a', 'b', 'c', 'd'];
const lexical = ['a', 'c', 'b'];

describe('fuseInTime: dated candidates as one more fused list', () => {
  it('fuses a question without dates exactly as reciprocal rank fusion does', () => {
    const plain = reciprocalRankFusion([vector, lexical], FUSION.k, FUSION.weights);
    for (const intervals of [undefined, []]) {
      const r = fuseInTime([vector, lexical], FUSION, intervals, (id) => dates[id]);
      assert.deepEqual(r.fused, plain);
      assert.deepEqual(r.weights, FUSION.weights);
    }
    // Dates that hold no candidate change nothing either.
    const none = { start: new Date('2020-01-01T00:00:00Z'), end: new Date('2020-02-01T00:00:00Z') };
    assert.deepEqual(fuseInTime([vector, lexical], FUSION, [none], (id) => dates[id]).fused, plain);
  });

  it('raises the candidates dated inside the interval, in their fused order', () => {
    const r = fuseInTime([vector, lexical], FUSION, [may], (id) => dates[id], { weight: 1, slackDays: 0 });
    assert.deepEqual(
      r.fused.map((f) => f.id),
      ['b', 'a', 'd', 'c'],
    );
    assert.deepEqual(r.weights, [0.1, 0.9, 1]);
  });

  it('widens the interval after its end by slackDays', () => {
    assert.equal(inIntervals(dates.c!, [may], 0), false);
    assert.equal(inIntervals(dates.c!, [may], 3), true);
    assert.equal(inIntervals(may.end, [may], 0), false, 'half-open');
    assert.equal(inIntervals(may.start, [may], 0), true);
  });
});

describe('memoryDate', () => {
  const created_at = new Date('2026-01-01T00:00:00Z');
  it('reads occurred_at, then session_date, then created_at', () => {
    assert.equal(
      memoryDate({
        metadata: { occurred_at: '2025-05-09', session_date: '2024-01-01T00:00:00Z' },
        created_at,
      }).toISOString(),
      '2025-05-09T00:00:00.000Z',
    );
    assert.equal(
      memoryDate({ metadata: { session_date: '2024-01-01T10:00:00+02:00' }, created_at }).toISOString(),
      '2024-01-01T08:00:00.000Z',
    );
    assert.equal(memoryDate({ metadata: { session_date: 'last week' }, created_at }), created_at);
    assert.equal(memoryDate({ metadata: { occurred_at: 20250509 }, created_at }), created_at);
    assert.equal(memoryDate({ metadata: {}, created_at }), created_at);
  });
});
