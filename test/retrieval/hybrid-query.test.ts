import assert from 'node:assert/strict';
import { ENGINES } from '@engram/testing';
import { add, addMany, NO_RATE_LIMITS, search, type ErrorBody } from './support.ts';
import { startTopicEmbeddings, TOPIC_DIMENSIONS } from './topic-embeddings-server.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

for (const engine of ENGINES) {
  describe(`hybrid query (${engine})`, function () {
    this.timeout(120_000);
    let t: TestEngram;
    let embeddings: Awaited<ReturnType<typeof startTopicEmbeddings>>;
    const ids: Record<string, string> = {};

    before(async () => {
      embeddings = await startTopicEmbeddings();
      t = await startTestEngram(engine, {
        ...NO_RATE_LIMITS,
        EMBEDDING_PROVIDER: 'openai',
        EMBEDDING_BASE_URL: embeddings.baseUrl,
        EMBEDDING_MODEL: 'topic-test',
        EMBEDDING_DIMENSIONS: String(TOPIC_DIMENSIONS),
      });
      // Paraphrases of the question (the vector channel loves them, but none holds its exact words).
      await addMany(
        t.admin,
        Array.from({ length: 10 }, (_, i) => ({
          content: `Deploys of payment services fail ${['often', 'sometimes', 'daily', 'weekly', 'rarely'][i % 5]} when canaries are unhealthy, team ${String.fromCharCode(97 + i)}`,
          agent_id: 'ops',
        })),
      );
      ids.code = await add(t.admin, {
        content: 'Error E4711 was traced to src/net/pool.ts by the on-call engineer',
        agent_id: 'ops',
      });
      ids.both = await add(t.admin, { content: 'payments deploy failing', agent_id: 'ops' });
      ids.path = await add(t.admin, { content: 'Connection leak fixed in src/net/pool.ts', agent_id: 'ops' });
    });
    after(async () => {
      await t?.stop();
      await embeddings?.close();
    });

    it('finds the memory holding an exact error code that the vector channel misses', async () => {
      const body = { query: 'payments deploy failing E4711', agent_id: 'ops', top_k: 5 };
      const vector = await search(t.admin, '/memories/query', body);
      assert.equal(vector.length, 5);
      assert.ok(!vector.some((m) => m.id === ids.code), 'the dense channel alone should miss E4711');
      const hybrid = await search(t.admin, '/memories/hybrid_query', body);
      // Weighted RRF led by the lexical list: the rare exact code outweighs three common words (the
      // paraphrases share their stems with the question), then the memory both channels rank high.
      assert.deepEqual(
        hybrid.slice(0, 2).map((m) => m.id),
        [ids.code, ids.both],
      );
      assert.equal(hybrid.length, 5);
      // score stays cosine: the exact-code memory shares no plain word with the question.
      const code = hybrid[0]!;
      assert.ok(typeof code.score === 'number' && Math.abs(code.score) < 0.2, String(code.score));
      assert.equal(code.relevance_score, undefined);
    });

    it('matches a file path exactly, and weighs the rare term above common ones', async () => {
      const hybrid = await search(t.admin, '/memories/hybrid_query', {
        query: 'where is src/net/pool.ts',
        agent_id: 'ops',
        top_k: 3,
      });
      assert.deepEqual(new Set(hybrid.slice(0, 2).map((m) => m.id)), new Set([ids.code, ids.path]));
      // "the" appears in the question and in many memories; a memory sharing only it never beats the path.
      const rare = await search(t.admin, '/memories/hybrid_query', {
        query: 'the the the E4711',
        agent_id: 'ops',
        top_k: 1,
      });
      assert.equal(rare[0]?.id, ids.code);
    });

    it('applies visibility and filters inside both channels', async () => {
      await add(t.admin, { content: 'Private note: E4711 happened to me too', agent_id: 'intruder' });
      await add(t.admin, {
        content: 'Runbook E4711 in another namespace',
        agent_id: 'ops',
        namespace: 'runbooks',
      });
      const internal = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'ops' });
      const seen = await search(internal, '/memories/hybrid_query', { query: 'E4711', top_k: 20 });
      assert.ok(seen.length > 0);
      assert.ok(
        seen.every((m) => m.agent_id === 'ops' && m.namespace === 'default'),
        JSON.stringify(seen),
      );
      const ns = await search(internal, '/memories/hybrid_query', { query: 'E4711', namespace: 'runbooks' });
      assert.deepEqual(
        ns.map((m) => m.content),
        ['Runbook E4711 in another namespace'],
      );
      const byAuthor = await search(t.admin, '/memories/hybrid_query', {
        query: 'E4711',
        agent_id: 'auditor',
        agent_ids: ['intruder'],
        scopes: ['agent-private'],
        memory_types: ['standard'],
      });
      assert.deepEqual(
        byAuthor.map((m) => m.agent_id),
        ['intruder'],
      );
      const none = await search(t.admin, '/memories/hybrid_query', {
        query: 'E4711',
        agent_id: 'auditor',
        memory_types: ['episodic'],
      });
      assert.deepEqual(none, []);
    });

    it('refuses bad input with 400 and never a 5xx', async () => {
      for (const body of [
        { query: '', agent_id: 'ops' },
        { query: 'x', top_k: 0 },
        { query: 'x', top_k: 101 },
        { query: 'x', memory_types: ['nope'] },
        { query: 'x', scopes: ['public'] },
        { query: 'x'.repeat(10_001) },
        { query: 'x', agent_id: 'bad id' },
      ]) {
        const res = await t.admin.post<ErrorBody>('/memories/hybrid_query', body);
        assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)} -> ${res.text}`);
        assert.equal(res.body.error.reason, 'VALIDATION_FAILED');
      }
      for (const query of ["it's & | ! (not) <-> 'quoted' :* \\ \u00e9t\u00e9", '!!!', '***']) {
        const res = await t.admin.post('/memories/hybrid_query', { query, agent_id: 'ops' });
        assert.equal(res.status, 200, `${query} -> ${res.text}`);
      }
    });
  });
}
