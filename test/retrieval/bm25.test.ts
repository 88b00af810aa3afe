import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { lexicalSearch } from '@engram/memories';
import { ENGINES } from '@engram/testing';
import { addMany, NO_RATE_LIMITS } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const NS = 'bm25';

/** The lexical channel alone, as `agent` (an unprivileged reader) sees it: ids in rank order. */
async function lexical(knex: Knex, agent: string, text: string, limit = 10): Promise<string[]> {
  const found = await lexicalSearch(
    knex,
    {
      reader: { projectId: 'default', agentId: agent, seesAll: false },
      namespace: NS,
      vector: Array.from({ length: 384 }, (_, i) => (i === 0 ? 1 : 0)),
      text,
      memoryTypes: [],
      scopes: [],
      authors: [],
    },
    limit,
  );
  return found.map((m) => m.id);
}

/** The statistics the triggers kept, and the same recomputed from the live memories. */
async function statistics(knex: Knex): Promise<{ kept: string[]; fresh: string[] }> {
  const kept = await knex.raw<{ rows: { k: string }[] }>(`
    select concat_ws('|', namespace, part, term, sum(df)) as k from lexical_df
     group by namespace, part, term having sum(df) <> 0
    union all
    select concat_ws('|', namespace, part, sum(n), sum(total_len)) from lexical_docs
     group by namespace, part having sum(n) <> 0 order by 1`);
  const fresh = await knex.raw<{ rows: { k: string }[] }>(`
    with m as (select id, namespace, engram_lexical_parts(scope, agent_id, shared_with) as parts, content
                 from memories where not is_deprecated)
    select concat_ws('|', namespace, p, t.term, count(*)) as k
      from m cross join unnest(parts) p cross join lateral engram_terms(m.content) t
     group by namespace, p, t.term
    union all
    select concat_ws('|', namespace, p, count(*), sum(dl)) from (
      select m.namespace, m.parts, coalesce((select sum(tf) from engram_terms(m.content)), 0) as dl from m) d
      cross join unnest(parts) p group by namespace, p order by 1`);
  return { kept: kept.rows.map((r) => r.k), fresh: fresh.rows.map((r) => r.k) };
}

for (const engine of ENGINES) {
  describe(`lexical channel: Okapi BM25 kept at write time (${engine})`, function () {
    this.timeout(120_000);
    let t: TestEngram;
    let knex: Knex;
    const ids: Record<string, string> = {};
    const put = async (entries: Record<string, { content: string; agent_id?: string; scope?: string }>) => {
      const names = Object.keys(entries);
      const got = await addMany(
        t.admin,
        names.map((n) => ({ agent_id: 'alice', namespace: NS, ...entries[n] })),
      );
      names.forEach((n, i) => (ids[n] = got[i]!));
    };

    before(async () => {
      t = await startTestEngram(engine, { ...NO_RATE_LIMITS, EMBEDDING_PROVIDER: 'hash' });
      knex = t.engram.db.knex;
      await put({
        // Same length, the query term once against three times: term frequency counts.
        once: { content: 'kiwi harvest notes from the orchard shed', scope: 'global' },
        thrice: { content: 'kiwi kiwi kiwi notes from the orchard', scope: 'global' },
        // The term once, in a short memory and in a long one: length normalisation.
        short: { content: 'mango delivery', scope: 'global' },
        long: {
          content:
            'mango delivery was discussed at length with the supplier, the driver, the warehouse team, the accountant and two neighbours over several afternoons',
          scope: 'global',
        },
        // One term twenty times against two different query terms once each: saturation.
        spam: { content: Array.from({ length: 20 }, () => 'papaya').join(' '), scope: 'global' },
        pair: { content: 'papaya and guava smoothie recipe', scope: 'global' },
        // Two global memories and alice's own private ones: quasar is rare for her, nebula common.
        quasar: { content: 'quasar observation log', scope: 'global' },
        nebula: { content: 'nebula observation log', scope: 'global' },
        n1: { content: 'nebula photo one', scope: 'agent-private' },
        n2: { content: 'nebula photo two', scope: 'agent-private' },
        n3: { content: 'nebula photo three', scope: 'agent-private' },
      });
    });
    after(async () => {
      await t?.stop();
    });

    it('counts how often a term occurs, with saturation, and discounts long memories', async () => {
      assert.deepEqual(await lexical(knex, 'alice', 'kiwi'), [ids.thrice, ids.once]);
      assert.deepEqual(await lexical(knex, 'alice', 'mango'), [ids.short, ids.long]);
      // Twenty papayas do not outweigh holding both words of the question.
      assert.deepEqual(await lexical(knex, 'alice', 'papaya guava'), [ids.pair, ids.spam]);
    });

    it('uses the same stemming and stop words for questions and memories', async () => {
      // "harvesting" and "harvest" meet on one stem; "what", "did", "the" and "about" are dropped.
      assert.deepEqual(await lexical(knex, 'alice', 'What did we say about the harvesting?'), [ids.once]);
    });

    it('takes IDF from the rows the reader may see, so another agent’s private rows change nothing', async () => {
      const before = await lexical(knex, 'alice', 'quasar nebula');
      // For alice nebula is in four rows and quasar in one: the quasar memory comes first.
      assert.equal(before[0], ids.quasar);
      await put(
        Object.fromEntries(
          Array.from({ length: 12 }, (_, i) => [
            `m${i}`,
            { content: `quasar note ${i}`, agent_id: 'mallory', scope: 'agent-private' },
          ]),
        ),
      );
      assert.deepEqual(await lexical(knex, 'alice', 'quasar nebula'), before);
      // Mallory, who sees her twelve quasar notes, ranks the nebula memory above the quasar one.
      const mallory = await lexical(knex, 'mallory', 'quasar nebula', 20);
      assert.ok(mallory.indexOf(ids.nebula!) < mallory.indexOf(ids.quasar!), JSON.stringify(mallory));
      assert.ok(!mallory.includes(ids.n1!), 'alice’s private memory reached mallory');
      // Shared with alice, the notes become part of what she sees, and of her statistics.
      await knex('memories')
        .where('agent_id', 'mallory')
        .update({ scope: 'agent-shared', shared_with: knex.raw(`array['alice']`) });
      const shared = await lexical(knex, 'alice', 'quasar nebula', 30);
      assert.ok(shared.indexOf(ids.nebula!) < shared.indexOf(ids.quasar!), JSON.stringify(shared));
    });

    it('ranks the context bundle and the handoff the same way, within the token budget', async () => {
      const bundle = await t.admin.post<{ items: { id: string; tokens: number }[]; tokens_used: number }>(
        '/context/load',
        { query: 'kiwi', agent_id: 'alice', namespace: NS, token_budget: 40 },
      );
      assert.equal(bundle.status, 200, bundle.text);
      assert.deepEqual(
        bundle.body.items.slice(0, 2).map((m) => m.id),
        [ids.thrice, ids.once],
      );
      assert.ok(bundle.body.tokens_used <= 40);
      const handoff = await t.admin.post<{ memories: { id: string }[] }>('/memories/handoff', {
        source_agent_id: 'alice',
        target_agent_id: 'bob',
        task_context: 'kiwi',
        namespace: NS,
      });
      assert.equal(handoff.status, 200, handoff.text);
      assert.deepEqual(
        handoff.body.memories.slice(0, 2).map((m) => m.id),
        [ids.thrice, ids.once],
      );
    });

    it('keeps the statistics equal to a recount after batch inserts, relabels, deprecations and deletes', async () => {
      assert.deepEqual((await statistics(knex)).kept, (await statistics(knex)).fresh);
      await knex('memories').whereIn('id', [ids.n1!, ids.n2!]).update({ is_deprecated: true });
      await knex('memories').where('id', ids.n3).update({ scope: 'global' });
      await knex('memories')
        .whereIn('id', knex('memories').select('id').where('agent_id', 'mallory').limit(1))
        .delete();
      await knex('memories').where('id', ids.long).update({ content: 'mango mango' });
      await knex('memories').where('agent_id', 'mallory').update({ scope: 'agent-private' });
      const s = await statistics(knex);
      assert.ok(s.fresh.length > 20);
      assert.deepEqual(s.kept, s.fresh);
      // Deprecated memories leave the channel.
      assert.deepEqual(await lexical(knex, 'alice', 'photo'), [ids.n3]);
    });
  });
}
