import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import { add, integrityFailures, knexOf, tamper } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface MemoryBody {
  id: string;
  content: string;
  is_deprecated: boolean;
  superseded_by?: string;
}
interface BundleBody {
  items: MemoryBody[];
  integrity_all_verified: boolean;
}
interface CurationBody {
  promoted: MemoryBody[];
  flagged: MemoryBody[];
  consolidation_candidates: { memory_id_a: string; memory_id_b: string }[];
}
interface ConsolidationBody {
  dry_run: boolean;
  merges: { kept_id: string; deprecated_id: string }[];
  unverified_ids: string[];
}

const NO_RATE_LIMITS = { RATE_LIMIT_PROJECT_PER_MINUTE: '1000000', RATE_LIMIT_AGENT_PER_MINUTE: '1000000' };

/**
 * Rows whose signature does not verify (edited in the database, or unsigned) are never trusted: the
 * context bundle does not call them verified, consolidation neither keeps nor deprecates them, and the
 * lists that drop them on read still fill up from the next rows.
 */
for (const engine of ENGINES) {
  describe(`unverified rows are never trusted (${engine})`, function () {
    this.timeout(120_000);
    let t: TestEngram;
    let curator: ApiClient;

    before(async () => {
      t = await startTestEngram(engine, NO_RATE_LIMITS);
      curator = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'curator' });
    });
    after(() => t?.stop());

    const vote = async (id: string, vote: 'helpful' | 'harmful') => {
      const res = await curator.post(`/memories/ace/vote/${id}`, { vote, task_id: 'review' });
      assert.equal(res.status, 200, res.text);
    };

    it('context bundle: integrity_all_verified is false when an item is unsigned, whether its hash is empty or missing', async () => {
      const namespace = 'bundle';
      const load = async () => {
        const res = await curator.post<BundleBody>('/context/load', {
          query: 'kiln temperature schedule',
          namespace,
          token_budget: 10_000,
        });
        assert.equal(res.status, 200, res.text);
        return res.body;
      };
      const first = await add(curator, {
        content: 'The kiln temperature schedule peaks at 1260 C.',
        namespace,
      });
      const second = await add(curator, {
        content: 'The kiln temperature schedule cools overnight.',
        namespace,
      });
      const signed = await load();
      assert.deepEqual(new Set(signed.items.map((m) => m.id)), new Set([first, second]));
      assert.equal(signed.integrity_all_verified, true);

      for (const hash of ['', null]) {
        await knexOf(t)('memories').where({ id: second }).update({ integrity_hash: hash });
        const bundle = await load();
        // Unsigned rows are readable without INTEGRITY_REQUIRE_SIGNED, so the item is there...
        assert.ok(
          bundle.items.some((m) => m.id === second),
          `hash ${JSON.stringify(hash)}`,
        );
        // ...but nobody vouched for it.
        assert.equal(bundle.integrity_all_verified, false, `hash ${JSON.stringify(hash)}`);
      }
    });

    it('consolidation: an edited memory that would be kept takes no part; the verified duplicates still merge', async () => {
      const namespace = 'consolidate';
      const advice = 'Purge the CDN cache after every deploy of the storefront';
      const best = await add(curator, { content: `${advice}.`, namespace, memory_type: 'strategy' });
      const second = await add(curator, { content: `${advice}!`, namespace, memory_type: 'strategy' });
      const third = await add(curator, { content: `${advice}?`, namespace, memory_type: 'strategy' });
      await vote(best, 'helpful');
      const body = { namespace, similarity_threshold: 0.9 };
      const before = await curator.post<ConsolidationBody>('/memories/ace/consolidate', {
        ...body,
        dry_run: true,
      });
      assert.equal(before.status, 200, before.text);
      assert.deepEqual(
        before.body.merges.map((m) => m.kept_id),
        [best, best],
        'intact, the most effective memory is the one kept',
      );
      assert.deepEqual(before.body.unverified_ids, []);

      await tamper(knexOf(t), best, 'content');
      const plan = await curator.post<ConsolidationBody>('/memories/ace/consolidate', {
        ...body,
        dry_run: true,
      });
      assert.equal(plan.status, 200, plan.text);
      assert.deepEqual(
        plan.body.merges.map((m) => [m.kept_id, m.deprecated_id]),
        [[second, third]],
      );
      assert.deepEqual(plan.body.unverified_ids, [best]);

      const applied = await curator.post<ConsolidationBody>('/memories/ace/consolidate', body);
      assert.equal(applied.status, 200, applied.text);
      assert.deepEqual(
        applied.body.merges.map((m) => [m.kept_id, m.deprecated_id]),
        [[second, third]],
      );
      const rows: { id: string; is_deprecated: boolean; superseded_by: string | null }[] = await knexOf(t)(
        'memories',
      )
        .whereIn('id', [best, second, third])
        .select('id', 'is_deprecated', 'superseded_by');
      const byId = new Map(rows.map((r) => [r.id, [r.is_deprecated, r.superseded_by]]));
      assert.deepEqual(byId.get(best), [false, null], 'the edited row stays as it is, as evidence');
      assert.deepEqual(byId.get(second), [false, null]);
      assert.deepEqual(byId.get(third), [true, second]);
      const failures = (await integrityFailures(knexOf(t), best)).map((e) => e.details.route);
      assert.ok(failures.includes('consolidate'), failures.join());
    });

    it('consolidation: an unsigned memory is neither kept nor deprecated either', async () => {
      const namespace = 'consolidate-unsigned';
      const advice = 'Rotate the on-call pager every Monday at nine';
      const unsigned = await add(curator, { content: `${advice}.`, namespace });
      const signed = await add(curator, { content: `${advice}!`, namespace });
      await vote(unsigned, 'helpful');
      await knexOf(t)('memories').where({ id: unsigned }).update({ integrity_hash: null });
      const plan = await curator.post<ConsolidationBody>('/memories/ace/consolidate', {
        namespace,
        similarity_threshold: 0.9,
      });
      assert.equal(plan.status, 200, plan.text);
      assert.deepEqual(plan.body.merges, []);
      assert.deepEqual(plan.body.unverified_ids, [unsigned]);
      const row = await knexOf(t)('memories').where({ id: signed }).first();
      assert.equal(row.is_deprecated, false);
    });

    it('curation: promoted and flagged lists of N still hold N when one of N+1 rows is dropped', async () => {
      const namespace = 'curate-lists';
      const good: string[] = [];
      const bad: string[] = [];
      for (let i = 0; i < 4; i++) {
        good.push(
          await add(curator, { content: `Helpful habit ${i}: write the rollback first.`, namespace }),
        );
        bad.push(await add(curator, { content: `Harmful habit ${i}: deploy on Friday night.`, namespace }));
      }
      for (const id of [...good, ...bad]) await vote(id, good.includes(id) ? 'helpful' : 'harmful');
      // Equal scores list the newest first: the newest of each list is the one edited.
      const curate = async () => {
        const res = await curator.post<CurationBody>('/ace/curate', { namespace, top_k: 3 });
        assert.equal(res.status, 200, res.text);
        return res.body;
      };
      const intact = await curate();
      assert.deepEqual(
        intact.promoted.map((m) => m.id),
        good.slice(1).reverse(),
      );
      assert.deepEqual(
        intact.flagged.map((m) => m.id),
        bad.slice(1).reverse(),
      );

      await tamper(knexOf(t), good[3]!, 'content');
      await tamper(knexOf(t), bad[3]!, 'content');
      const out = await curate();
      assert.deepEqual(
        out.promoted.map((m) => m.id),
        good.slice(0, 3).reverse(),
      );
      assert.deepEqual(
        out.flagged.map((m) => m.id),
        bad.slice(0, 3).reverse(),
      );
    });

    it('curation: consolidation candidates of N still hold N when a pair loses a dropped memory', async () => {
      const namespace = 'curate-pairs';
      for (const topic of [
        'Pin the base image digest in every Dockerfile',
        'Rebuild the search index after each schema change',
        'Renew the TLS certificates two weeks before expiry',
      ]) {
        await add(curator, { content: `${topic}.`, namespace });
        await add(curator, { content: `${topic}!`, namespace });
      }
      const candidates = async () => {
        const res = await curator.post<CurationBody>('/ace/curate', { namespace, top_k: 2 });
        assert.equal(res.status, 200, res.text);
        return res.body.consolidation_candidates;
      };
      const intact = await candidates();
      assert.equal(intact.length, 2);
      const edited = intact[0]!.memory_id_a;
      await tamper(knexOf(t), edited, 'content');
      const out = await candidates();
      assert.equal(out.length, 2, JSON.stringify(out));
      for (const c of out) assert.ok(c.memory_id_a !== edited && c.memory_id_b !== edited);
    });
  });
}
