import assert from 'node:assert/strict';
import { ENGINES } from '@engram/testing';
import { add, NO_RATE_LIMITS, search, type ErrorBody, type MemoryBody } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

/** Asked on 20 November 2025: "last May" is May 2025, "last March" March 2025. */
const AS_OF = '2025-11-20T10:00:00Z';

for (const engine of ENGINES) {
  describe(`dates in questions, read against as_of (${engine})`, function () {
    this.timeout(120_000);
    let t: TestEngram;
    const ids: Record<string, string> = {};

    before(async () => {
      t = await startTestEngram(engine, NO_RATE_LIMITS);
      // The same story three times, told in different sessions: only the date tells them apart.
      const trip = (place: string, metadata: object) =>
        add(t.admin, { content: `Went hiking with Sam to the ${place}`, agent_id: 'me', metadata });
      ids.march = await trip('lake', { session_date: '2025-03-14T18:00:00Z' });
      ids.may = await trip('hills', { session_date: '2025-05-09T18:00:00Z' });
      // occurred_at is the documented key; session_date (what conversation importers write) too.
      ids.july = await trip('coast', { occurred_at: '2025-07-21' });
      await add(t.admin, { content: 'Bought new boots for the winter', agent_id: 'me' });
    });
    after(() => t?.stop());

    const hybrid = (query: string, extra: object = {}) =>
      search(t.admin, '/memories/hybrid_query', { query, agent_id: 'me', top_k: 4, ...extra });

    it('puts the memory dated in the month the question names first', async () => {
      for (const [month, id] of [
        ['May', ids.may],
        ['March', ids.march],
        ['July', ids.july],
      ] as const) {
        const rows = await hybrid(`where did I go hiking last ${month}`, { as_of: AS_OF });
        assert.equal(rows[0]?.id, id, `last ${month}: ${rows.map((m) => m.content).join(' | ')}`);
      }
      // Read against as_of: asked in April 2025, "last May" is May 2024, when nothing happened, so
      // the order is the one of a "last May" that holds nothing (the server's clock: May 2026).
      const undated = await hybrid('where did I go hiking last May');
      const april = await hybrid('where did I go hiking last May', { as_of: '2025-04-02T00:00:00Z' });
      assert.deepEqual(
        april.map((m) => m.id),
        undated.map((m) => m.id),
      );
    });

    it('ranks a question without dates exactly as without as_of', async () => {
      const plain = await hybrid('where did I go hiking');
      for (const asOf of [AS_OF, '2025-05-10T00:00:00Z']) {
        const withAsOf = await hybrid('where did I go hiking', { as_of: asOf });
        assert.deepEqual(
          withAsOf.map((m) => [m.id, m.score]),
          plain.map((m) => [m.id, m.score]),
        );
      }
    });

    it('leaves a date anchored on an event unresolved, and does not fall back on the rest', async () => {
      const q = 'where did I go hiking two weeks before the wedding last May';
      const plain = await hybrid(q, { as_of: '2025-04-02T00:00:00Z' });
      const anchored = await hybrid(q, { as_of: AS_OF });
      assert.deepEqual(
        anchored.map((m) => m.id),
        plain.map((m) => m.id),
      );
    });

    it('reads dates in the context bundle too', async () => {
      const res = await t.admin.post<{ items: MemoryBody[] }>('/context/load', {
        agent_id: 'me',
        query: 'where did I go hiking last May',
        token_budget: 1000,
        as_of: AS_OF,
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.items[0]?.id, ids.may);
    });

    it('refuses a bad as_of with a 400 naming it', async () => {
      for (const [path, body] of [
        ['/memories/hybrid_query', { query: 'hiking', agent_id: 'me' }],
        ['/memories/query', { query: 'hiking', agent_id: 'me' }],
        ['/context/load', { query: 'hiking', agent_id: 'me', token_budget: 100 }],
      ] as const) {
        for (const asOf of ['2025-02-30T00:00:00Z', 'last May', '2025-05-01', 'now']) {
          const res = await t.admin.post<ErrorBody>(path, { ...body, as_of: asOf });
          assert.equal(res.status, 400, `${path} ${asOf}: ${res.text}`);
          assert.equal(res.body.error.reason, 'VALIDATION_FAILED', res.text);
          const violations = res.body.error.details.flatMap((d) => d.field_violations ?? []);
          assert.deepEqual(
            violations.map((v) => [v.field, v.reason]),
            [['as_of', 'INVALID_VALUE']],
          );
        }
      }
    });
  });
}
