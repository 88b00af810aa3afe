import assert from 'node:assert/strict';
import { ENGINES, type ApiClient } from '@engram/testing';
import { add, NO_RATE_LIMITS, type ErrorBody, type MemoryBody } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface HandoffBody {
  source_agent_id: string;
  target_agent_id: string;
  task_context: string;
  memories: MemoryBody[];
}
interface BundleBody {
  agent_id: string;
  query: string;
  token_budget: number;
  tokens_used: number;
  items: MemoryBody[];
  integrity_all_verified: boolean;
}

for (const engine of ENGINES) {
  describe(`handoff and context bundle (${engine})`, function () {
    this.timeout(120_000);
    let t: TestEngram;
    let alice: ApiClient;
    let bob: ApiClient;
    let carol: ApiClient;
    const ids: Record<string, string> = {};

    before(async () => {
      t = await startTestEngram(engine, NO_RATE_LIMITS);
      alice = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'alice' });
      bob = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'bob' });
      carol = await t.admin.createKey({ trust_level: 'internal', bound_agent_id: 'carol' });
      const w = (content: string, extra: object = {}) => add(alice, { content, agent_id: 'alice', ...extra });
      ids.private = await w('Migration plan: the billing cutover needs the ledger freeze first');
      ids.shared = await w('Migration plan: billing cutover runs Saturday 02:00 UTC', {
        scope: 'agent-shared',
        shared_with: ['bob'],
      });
      ids.global = await w('Migration plan: billing cutover rollback script is scripts/rollback-billing.sh', {
        scope: 'global',
      });
      ids.carol = await w('Migration plan: billing cutover budget approvals', {
        scope: 'agent-shared',
        shared_with: ['carol'],
      });
      ids.other = await add(carol, {
        content: 'Migration plan: billing cutover from carol',
        agent_id: 'carol',
        scope: 'global',
      });
    });
    after(async () => {
      await t?.stop();
    });

    const handoff = (api: ApiClient, body: object) => api.post<HandoffBody>('/memories/handoff', body);
    const baton = {
      source_agent_id: 'alice',
      target_agent_id: 'bob',
      task_context: 'billing cutover migration plan',
    };

    it('hands over only the source memories the target may read', async () => {
      for (const api of [alice, bob, t.admin]) {
        const res = await handoff(api, baton);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.source_agent_id, 'alice');
        assert.equal(res.body.target_agent_id, 'bob');
        assert.equal(res.body.task_context, baton.task_context);
        assert.deepEqual(new Set(res.body.memories.map((m) => m.id)), new Set([ids.shared, ids.global]));
        assert.ok(res.body.memories.every((m) => typeof m.score === 'number'));
      }
      const limited = await handoff(alice, { ...baton, max_memories: 1 });
      assert.equal(limited.body.memories.length, 1);
    });

    it('refuses a bound key that is neither source nor target with 403 AGENT_MISMATCH', async () => {
      const res = await t.admin.withKey(carol.key).post<ErrorBody>('/memories/handoff', baton);
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.reason, 'AGENT_MISMATCH');
    });

    it('refuses bad handoff input with 400', async () => {
      for (const body of [
        { ...baton, source_agent_id: '' },
        { ...baton, target_agent_id: 'bad id' },
        { ...baton, task_context: '  ' },
        { ...baton, max_memories: 0 },
        { ...baton, max_memories: 1000 },
      ]) {
        const res = await handoff(alice, body);
        assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.text}`);
      }
    });

    const load = (api: ApiClient, body: object) => api.post<BundleBody>('/context/load', body);

    it('packs ranked, verified memories within the token budget and reports the tokens', async () => {
      for (let i = 0; i < 8; i++) {
        await add(bob, {
          content: `Billing cutover checklist item ${i}: ${'verify the ledger totals before and after. '.repeat(i + 1)}`,
          agent_id: 'bob',
        });
      }
      const full = await load(bob, { query: 'billing cutover checklist', token_budget: 100_000 });
      assert.equal(full.status, 200, full.text);
      assert.equal(full.body.agent_id, 'bob');
      assert.equal(full.body.token_budget, 100_000);
      assert.equal(full.body.integrity_all_verified, true);
      // Everything bob may read about the cutover, and nothing alice kept private.
      assert.ok(full.body.items.some((m) => m.id === ids.shared));
      assert.ok(!full.body.items.some((m) => m.id === ids.private || m.id === ids.carol));
      const sum = full.body.items.reduce((s, m) => s + m.tokens!, 0);
      assert.equal(full.body.tokens_used, sum);
      for (const m of full.body.items) assert.ok(m.tokens! >= Math.ceil([...m.content].length / 4));

      const budget = Math.floor(full.body.tokens_used / 3);
      const small = await load(bob, { query: 'billing cutover checklist', token_budget: budget });
      assert.equal(small.status, 200, small.text);
      assert.ok(small.body.items.length > 0 && small.body.items.length < full.body.items.length);
      assert.ok(small.body.tokens_used <= budget, `${small.body.tokens_used} > ${budget}`);
      assert.equal(
        small.body.tokens_used,
        small.body.items.reduce((s, m) => s + m.tokens!, 0),
      );
      // Rank order is kept among what fits.
      const rank = new Map(full.body.items.map((m, i) => [m.id, i]));
      const ranks = small.body.items.map((m) => rank.get(m.id)!);
      assert.deepEqual(
        ranks,
        [...ranks].sort((a, b) => a - b),
      );

      const tiny = await load(bob, { query: 'billing cutover checklist', token_budget: 1 });
      assert.deepEqual(tiny.body.items, []);
      assert.equal(tiny.body.tokens_used, 0);
    });

    it('refuses a bundle without a budget or query, or for another agent, with a 4xx', async () => {
      for (const body of [
        { query: 'x', token_budget: 0 },
        { query: 'x', token_budget: -5 },
        { query: '', token_budget: 100 },
        { query: 'x', token_budget: 2_000_000 },
      ]) {
        const res = await load(bob, body);
        assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.text}`);
      }
      const other = await t.admin.withKey(bob.key).post<ErrorBody>('/context/load', {
        agent_id: 'alice',
        query: 'x',
        token_budget: 10,
      });
      assert.equal(other.status, 403);
      assert.equal(other.body.error.reason, 'AGENT_MISMATCH');
    });

    it('drops a tampered memory from hybrid query, handoff and the bundle, and records INTEGRITY_FAILED', async () => {
      const knex = t.engram.db.knex;
      await knex('memories').where({ id: ids.global }).update({
        content: 'Migration plan: billing cutover rollback script is scripts/evil.sh',
      });
      const hybrid = await bob.post<{ memories: MemoryBody[] }>('/memories/hybrid_query', {
        query: 'billing cutover rollback script',
      });
      assert.equal(hybrid.status, 200);
      assert.ok(hybrid.body.memories.length > 0);
      assert.ok(!hybrid.body.memories.some((m) => m.id === ids.global));
      const h = await handoff(bob, baton);
      assert.deepEqual(
        h.body.memories.map((m) => m.id),
        [ids.shared],
      );
      const bundle = await load(bob, { query: 'billing cutover rollback script', token_budget: 10_000 });
      assert.ok(!bundle.body.items.some((m) => m.id === ids.global));
      assert.equal(bundle.body.integrity_all_verified, true);
      const events: { details: { route: string } | string }[] = await knex('audit_events')
        .where({ event_type: 'INTEGRITY_FAILED', memory_id: ids.global })
        .select('details');
      const routes = events.map(
        (e) =>
          (typeof e.details === 'string' ? (JSON.parse(e.details) as { route: string }) : e.details).route,
      );
      for (const route of ['hybrid_query', 'handoff', 'context_load'])
        assert.ok(routes.includes(route), routes.join());
    });
  });
}
