import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import { add, addMany, NO_RATE_LIMITS, search } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

for (const engine of ENGINES) {
  describe(`query filters and full filtered top_k (${engine})`, function () {
    this.timeout(180_000);
    let t: TestEngram;
    let reader: ApiClient;

    before(async () => {
      t = await startTestEngram(engine, NO_RATE_LIMITS);
      reader = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'needle' });
      const text = (i: number) => `Cache invalidation for the pricing service, variant ${i}`;
      // 600 near-identical memories the reader may not see (private to others) or that do not match
      // the filters (other types, other authors), then 12 that do.
      await addMany(
        t.admin,
        Array.from({ length: 600 }, (_, i) => ({
          content: text(i),
          agent_id: `other-${i % 7}`,
          memory_type: i % 2 === 0 ? 'standard' : 'semantic',
          scope: i % 3 === 0 ? 'global' : 'agent-private',
        })),
      );
      await addMany(
        reader,
        Array.from({ length: 12 }, (_, i) => ({
          content: `Pricing cache note ${i}: invalidate on every price change`,
          agent_id: 'needle',
          memory_type: 'control',
        })),
      );
    });
    after(async () => {
      await t?.stop();
    });

    it('keeps a filtered top_k full when most near neighbours are filtered out', async () => {
      const q = { query: 'cache invalidation for the pricing service', top_k: 10 };
      const byType = await search(reader, '/memories/query', { ...q, memory_types: ['control'] });
      assert.equal(byType.length, 10);
      assert.ok(byType.every((m) => m.memory_type === 'control' && m.agent_id === 'needle'));
      const byAuthor = await search(t.admin, '/memories/query', {
        ...q,
        agent_id: 'x',
        agent_ids: ['needle'],
      });
      assert.equal(byAuthor.length, 10);
      assert.ok(byAuthor.every((m) => m.agent_id === 'needle'));
      // Visibility: the reader sees its own and the global ones, and still gets a full page.
      const visible = await search(reader, '/memories/query', { ...q, top_k: 50 });
      assert.equal(visible.length, 50);
      assert.ok(visible.every((m) => m.agent_id === 'needle' || m.scope === 'global'));
      const hybrid = await search(reader, '/memories/hybrid_query', { ...q, memory_types: ['control'] });
      assert.equal(hybrid.length, 10);
      assert.ok(hybrid.every((m) => m.memory_type === 'control'));
    });

    it('filters query by type, scope, author and namespace; score is cosine', async () => {
      const q = { query: 'pricing cache', agent_id: 'auditor', top_k: 100 };
      const scoped = await search(t.admin, '/memories/query', {
        ...q,
        scopes: ['global'],
        memory_types: ['semantic'],
      });
      assert.ok(scoped.length > 0);
      assert.ok(scoped.every((m) => m.scope === 'global' && m.memory_type === 'semantic'));
      const authors = await search(t.admin, '/memories/query', { ...q, agent_ids: ['other-1', 'other-2'] });
      assert.deepEqual(new Set(authors.map((m) => m.agent_id)), new Set(['other-1', 'other-2']));
      const empty = await search(t.admin, '/memories/query', { ...q, namespace: 'elsewhere' });
      assert.deepEqual(empty, []);
      for (let i = 1; i < scoped.length; i++) assert.ok(scoped[i - 1]!.score! >= scoped[i]!.score!);
      assert.ok(scoped.every((m) => m.score! <= 1 + 1e-9 && m.score! > 0 && m.relevance_score === undefined));
      const floor = await search(t.admin, '/memories/query', { ...q, min_score: 0.99 });
      assert.ok(floor.every((m) => m.score! >= 0.99));
    });

    it('answers typed queries across the listed types, honouring session_id and entity_id', async () => {
      for (let i = 0; i < 3; i++) {
        await add(t.admin, {
          content: `Step ${i} of the pricing cache rollout`,
          agent_id: 'typer',
          memory_type: 'episodic',
          session_id: 's-1',
          sequence_number: i,
        });
      }
      await add(t.admin, {
        content: 'Pricing cache rollout step in another session',
        agent_id: 'typer',
        memory_type: 'episodic',
        session_id: 's-2',
        sequence_number: 0,
      });
      await add(t.admin, {
        content: 'Pricing cache is owned by team Lima',
        agent_id: 'typer',
        memory_type: 'semantic',
        entity_id: 'pricing-cache',
      });
      const session = await search(t.admin, '/memories/typed/query', {
        query: 'pricing cache rollout',
        agent_id: 'typer',
        memory_types: ['episodic'],
        session_id: 's-1',
      });
      assert.equal(session.length, 3);
      assert.ok(session.every((m) => m.session_id === 's-1' && m.memory_type === 'episodic'));
      const entity = await search(t.admin, '/memories/typed/query', {
        query: 'who owns the pricing cache',
        agent_id: 'typer',
        entity_id: 'pricing-cache',
      });
      assert.deepEqual(
        entity.map((m) => m.content),
        ['Pricing cache is owned by team Lima'],
      );
      const across = await search(t.admin, '/memories/typed/query', {
        query: 'pricing cache',
        agent_id: 'typer',
        top_k: 100,
      });
      assert.ok(
        across.every((m) => ['episodic', 'semantic', 'procedural', 'control'].includes(m.memory_type)),
      );
      assert.ok(
        across.some((m) => m.memory_type === 'control') && across.some((m) => m.memory_type === 'episodic'),
      );
      const bad = await t.admin.post('/memories/typed/query', { query: 'x', memory_types: ['standard'] });
      assert.equal(bad.status, 400);
      const timeline = await t.admin.get<{ memories: { sequence_number: number }[] }>(
        '/memories/typed/episodic/session/s-1?agent_id=typer',
      );
      assert.equal(timeline.status, 200, timeline.text);
      assert.deepEqual(
        timeline.body.memories.map((m) => m.sequence_number ?? 0),
        [0, 1, 2],
      );
    });
  });
}
