import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ENGINES } from '@engram/testing';
import { add, NO_RATE_LIMITS, search } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const DAY_MS = 86_400_000;

for (const engine of ENGINES) {
  describe(`trust-weighted ranking (${engine})`, function () {
    this.timeout(120_000);
    let t: TestEngram;
    const knex = () => t.engram.db.knex;

    const vote = async (memoryId: string, vote: 'helpful' | 'harmful', voters: number) => {
      // The vote route belongs to ace-feedback; its table is what ranking reads.
      for (let i = 0; i < voters; i++) {
        await knex()('memory_votes').insert({
          project_id: 'default',
          memory_id: memoryId,
          voter_agent_id: `voter-${vote}-${i}-${randomUUID()}`,
          vote,
          api_key_id: 'bootstrap',
        });
      }
    };
    const age = (id: string, days: number) =>
      knex()('memories')
        .where({ id })
        .update({ created_at: new Date(Date.now() - days * DAY_MS) });
    /** The same content by two authors: equal cosine, so only the other signals can order them. */
    const twins = async (namespace: string, content: string, a: object = {}, b: object = {}) => [
      await add(t.admin, { content, agent_id: `${namespace}-a`, namespace, ...a }),
      await add(t.admin, { content, agent_id: `${namespace}-b`, namespace, ...b }),
    ];
    const order = async (namespace: string, query: string, path = '/memories/query') => {
      const rows = await search(t.admin, path, { query, agent_id: 'reader', namespace, top_k: 10 });
      for (const r of rows) assert.equal(typeof r.relevance_score, 'number');
      return rows;
    };

    before(async () => {
      t = await startTestEngram(engine, { ...NO_RATE_LIMITS, ENABLE_TRUST_WEIGHTED_RANKING: 'true' });
    });
    after(async () => {
      await t?.stop();
    });

    it('ranks a memory voted helpful above its unvoted twin, and a harmful one below', async () => {
      const [a, b] = await twins('votes', 'Use exponential backoff when the queue rejects a message');
      await vote(b!, 'helpful', 3);
      let rows = await order('votes', 'queue rejects message backoff');
      assert.deepEqual(
        rows.map((r) => r.id),
        [b, a],
      );
      assert.equal(rows[0]!.score, rows[1]!.score, 'score stays cosine');
      assert.ok(rows[0]!.relevance_score! > rows[1]!.relevance_score!);
      rows = await order('votes', 'queue rejects message backoff', '/memories/hybrid_query');
      assert.deepEqual(
        rows.map((r) => r.id),
        [b, a],
      );
      await vote(b!, 'harmful', 6);
      rows = await order('votes', 'queue rejects message backoff');
      assert.deepEqual(
        rows.map((r) => r.id),
        [a, b],
      );
    });

    it('ranks system-trusted content above untrusted content of equal similarity', async () => {
      const [a, b] = await twins('trust', 'The staging database password rotates every Monday', {
        trust_level: 'untrusted',
      });
      const rows = await order('trust', 'when does the staging database password rotate');
      assert.deepEqual(
        rows.map((r) => [r.id, r.trust_level]),
        [
          [b, 'system'],
          [a, 'untrusted'],
        ],
      );
    });

    it('decays with age, faster for episodic-like types than for procedures', async () => {
      const [a, b] = await twins('recency', 'Rebuild the search index after a schema change');
      await age(a!, 60);
      let rows = await order('recency', 'rebuild search index schema change');
      assert.deepEqual(
        rows.map((r) => r.id),
        [b, a],
      );
      // Both 30 days old: a progress note (half-life 7 days) has decayed, a strategy (365 days) has not.
      const [p, s] = await twins(
        'halflife',
        'Shard the tenants table by region before the migration',
        { memory_type: 'progress' },
        { memory_type: 'strategy', scope: 'agent-private' },
      );
      await age(p!, 30);
      await age(s!, 30);
      rows = await order('halflife', 'shard tenants table by region');
      assert.deepEqual(
        rows.map((r) => [r.id, r.memory_type]),
        [
          [s, 'strategy'],
          [p, 'progress'],
        ],
      );
    });

    it('gives a memory without a provenance record the neutral prior, below a direct write', async () => {
      const [a, b] = await twins('provenance', 'Pin the base image digest in every Dockerfile');
      await knex()('memory_provenance').where({ memory_id: a }).delete();
      const rows = await order('provenance', 'pin base image digest dockerfile');
      assert.deepEqual(
        rows.map((r) => r.id),
        [b, a],
      );
    });

    it('still lets similarity lead: a close match beats a loosely related, well-voted one', async () => {
      const close = await add(t.admin, {
        content: 'Kafka consumer lag alerts fire when the consumer group rebalances',
        agent_id: 'sim',
        namespace: 'similarity',
      });
      const loose = await add(t.admin, {
        content: 'Weekly report of the marketing consumer survey',
        agent_id: 'sim',
        namespace: 'similarity',
      });
      await vote(loose, 'helpful', 2);
      const rows = await order('similarity', 'kafka consumer lag alerts rebalance');
      assert.deepEqual(
        rows.map((r) => r.id),
        [close, loose],
      );
    });
  });
}
