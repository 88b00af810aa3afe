import assert from 'node:assert/strict';
import { type ApiResponse } from '@engram/testing';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface BatchBody {
  results: {
    index: number;
    id?: string;
    deduplicated: boolean;
    error?: { status: number; reason: string };
  }[];
}

const WRITERS = 8;
const BATCH = 100;
const DISTINCT = 150;
const ROUNDS = 15;

/** A random `n` of `items`, in random order (Fisher-Yates on a copy). */
function shuffledSample<T>(items: readonly T[], n: number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a.slice(0, n);
}

/**
 * Concurrent add_batch requests whose contents overlap in random order: without one lock order their
 * deduplication inserts wait on each other in a cycle and PostgreSQL aborts one ("deadlock
 * detected"). Writers take the dedup locks in key order and the service retries what PostgreSQL
 * still aborts, so no client ever sees a 5xx, and every content is stored exactly once.
 */
describe('concurrent add_batch with shuffled overlapping content (postgres)', function () {
  this.timeout(300_000);
  let t: TestEngram;

  before(async () => {
    t = await startTestEngram('postgres', {
      RATE_LIMIT_PROJECT_PER_MINUTE: '1000000',
      RATE_LIMIT_AGENT_PER_MINUTE: '1000000',
      DATABASE_POOL_MAX: '10',
    });
  });
  after(async () => {
    await t?.stop();
  });

  it(`${ROUNDS} rounds of ${WRITERS} concurrent batches of ${BATCH}: no 5xx, each content stored once, answers in caller order`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const contents = Array.from(
        { length: DISTINCT },
        (_, i) => `Round ${round} fact ${i}: the deploy window of service ${i} closes at ${i % 24}:00 UTC.`,
      );
      const batches = Array.from({ length: WRITERS }, () => shuffledSample(contents, BATCH));
      const answers: ApiResponse<BatchBody>[] = await Promise.all(
        batches.map((batch) =>
          t.admin.post<BatchBody>('/memories/add_batch', {
            items: batch.map((content) => ({ content, agent_id: 'loader' })),
          }),
        ),
      );
      const idOf = new Map<string, string>();
      let created = 0;
      answers.forEach((res, w) => {
        assert.equal(res.status, 200, `round ${round}, writer ${w}: ${res.status} ${res.text.slice(0, 300)}`);
        assert.equal(res.body.results.length, BATCH);
        res.body.results.forEach((r, i) => {
          assert.equal(r.index, i, 'results in the order of the items');
          assert.equal(
            r.error,
            undefined,
            `round ${round}, writer ${w}, item ${i}: ${JSON.stringify(r.error)}`,
          );
          assert.ok(r.id);
          const content = batches[w]![i]!;
          // The same content answers the same memory in every batch: the answer matches its item.
          const seen = idOf.get(content);
          if (seen === undefined) idOf.set(content, r.id);
          else assert.equal(r.id, seen, `round ${round}: one content, two memories`);
          if (!r.deduplicated) created += 1;
        });
      });
      const used = new Set(batches.flat());
      assert.equal(created, used.size, `round ${round}: each content created by exactly one item`);
      const counted = await t.engram.db.knex.raw<{ rows: { distinct: string; total: string }[] }>(
        'select count(distinct content) as distinct, count(*) as total from memories where content = any(?)',
        [[...used]],
      );
      const { distinct, total } = counted.rows[0]!;
      assert.deepEqual(
        [Number(distinct), Number(total)],
        [used.size, used.size],
        `round ${round}: one memory per distinct content`,
      );
    }
  });
});
