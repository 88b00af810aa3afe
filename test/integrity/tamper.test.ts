import assert from 'node:assert/strict';
import { signV1 } from '@engram/integrity';
import { ENGINES, type ApiClient } from '@engram/testing';
import { add, exportAll, integrityFailures, knexOf, tamper, type TamperField } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface MemoryBody {
  id: string;
  content: string;
  integrity_status?: string;
}
interface ListBody {
  memories: MemoryBody[];
}

const FIELDS: TamperField[] = ['content', 'scope', 'trust_level', 'agent_id', 'project_id'];

/** A second project whose system key reads what a project_id edit moved into it. */
async function otherProjectAdmin(t: TestEngram): Promise<ApiClient> {
  const created = await t.admin.post('/admin/projects', { project_id: 'other-project', name: 'Other' });
  assert.equal(created.status, 200, created.text);
  return t.admin.createKey({ trust_level: 'system', project_id: 'other-project' });
}

for (const engine of ENGINES) {
  describe(`tampering is visible and harmless on every read path (${engine})`, function () {
    this.timeout(120_000);
    let drop: TestEngram;
    let flag: TestEngram;
    let dropOther: ApiClient;
    let flagOther: ApiClient;

    before(async () => {
      drop = await startTestEngram(engine);
      flag = await startTestEngram(engine, { INTEGRITY_READ_MODE: 'flag', INTEGRITY_REQUIRE_SIGNED: 'true' });
      dropOther = await otherProjectAdmin(drop);
      flagOther = await otherProjectAdmin(flag);
    });
    after(async () => {
      await drop?.stop();
      await flag?.stop();
    });

    for (const field of FIELDS) {
      it(`drop mode: a direct edit of ${field} hides the memory from GET and query, records INTEGRITY_FAILED, and export marks it invalid`, async () => {
        const content = `Tamper target ${field}: the staging database password rotates every Friday at noon.`;
        const id = await add(drop.admin, {
          content,
          agent_id: 'writer',
          scope: 'agent-private',
          trust_level: 'internal',
        });
        const reader = field === 'project_id' ? dropOther : drop.admin;
        assert.equal((await reader.get(`/memories/${id}`)).status, field === 'project_id' ? 404 : 200);
        await tamper(knexOf(drop), id, field);

        const got = await reader.get(`/memories/${id}`);
        assert.equal(got.status, 404, got.text);
        const failures = await integrityFailures(knexOf(drop), id);
        assert.equal(failures.length, 1);
        assert.equal(failures[0]!.details.route, 'get');
        assert.equal(failures[0]!.details.status, 'invalid');

        const q = await reader.post<ListBody>('/memories/query', { query: content, top_k: 100 });
        assert.equal(q.status, 200, q.text);
        assert.ok(!q.body.memories.some((m) => m.id === id), 'the tampered row never reaches a query result');

        const exported = (await exportAll(reader)).find((r) => r.id === id);
        assert.ok(exported, 'export never drops a row');
        assert.equal(exported.integrity_status, 'invalid');
        assert.equal(exported.integrity_format, 'v2');
      });
    }

    it('drop mode: session timelines, entity reads and typed queries drop edited rows', async () => {
      const knex = knexOf(drop);
      const steps = [];
      for (let i = 1; i <= 3; i++) {
        steps.push(
          await add(
            drop.admin,
            {
              content: `Step ${i} of the incident response for INC-42.`,
              agent_id: 'responder',
              session_id: 'inc-42',
              sequence_number: i,
            },
            '/memories/typed/episodic',
          ),
        );
      }
      await tamper(knex, steps[1]!, 'content');
      const timeline = await drop.admin.get<ListBody>(
        '/memories/typed/episodic/session/inc-42?agent_id=responder',
      );
      assert.equal(timeline.status, 200, timeline.text);
      assert.deepEqual(
        timeline.body.memories.map((m) => m.id),
        [steps[0], steps[2]],
      );
      assert.equal((await integrityFailures(knex, steps[1]!))[0]?.details.route, 'session_timeline');

      const facts = [];
      for (const c of ['The kraken cluster runs Postgres 15.', 'The kraken cluster lives in eu-west-3.']) {
        facts.push(
          await add(
            drop.admin,
            { content: c, agent_id: 'librarian', entity_id: 'kraken' },
            '/memories/typed/semantic',
          ),
        );
      }
      await tamper(knex, facts[0]!, 'trust_level', 'unknown');
      const entity = await drop.admin.get<ListBody>(
        '/memories/typed/semantic/entity/kraken?agent_id=librarian',
      );
      assert.equal(entity.status, 200, entity.text);
      assert.deepEqual(
        entity.body.memories.map((m) => m.id),
        [facts[1]],
      );
      assert.equal((await integrityFailures(knex, facts[0]!))[0]?.details.route, 'entity');

      const typed = await drop.admin.post<ListBody>('/memories/typed/query', {
        query: 'kraken cluster Postgres',
        agent_id: 'librarian',
        memory_types: ['semantic'],
        top_k: 10,
      });
      assert.equal(typed.status, 200, typed.text);
      const ids = typed.body.memories.map((m) => m.id);
      assert.ok(ids.includes(facts[1]!));
      assert.ok(!ids.includes(facts[0]!));
    });

    it('drop mode: a query still fills top_k from the next candidates when edited rows are dropped', async () => {
      const items = Array.from({ length: 30 }, (_, i) => ({
        content: `Zebra crossing rule ${i}: pedestrians on zebra crossings have priority (rule ${i}).`,
        agent_id: 'zebra',
      }));
      const batch = await drop.admin.post<{ results: { id: string }[] }>('/memories/add_batch', { items });
      assert.equal(batch.status, 200, batch.text);
      const ids = batch.body.results.map((r) => r.id);
      const tampered = ids.slice(0, 24);
      await knexOf(drop)('memories')
        .whereIn('id', tampered)
        .update({ content: drop.engram.db.knex.raw(`content || '!'`) });
      const q = await drop.admin.post<ListBody>('/memories/query', {
        query: 'zebra crossing pedestrians priority rule',
        agent_id: 'zebra',
        top_k: 5,
      });
      assert.equal(q.status, 200, q.text);
      assert.equal(q.body.memories.length, 5);
      for (const m of q.body.memories) assert.ok(!tampered.includes(m.id));
    });

    it('drop mode: deprecating an edited memory works but never shows its content', async () => {
      const id = await add(drop.admin, { content: 'Deprecate after tampering.', agent_id: 'cleaner' });
      await tamper(knexOf(drop), id, 'content');
      const res = await drop.admin.post(`/memories/${id}/deprecate`, {
        agent_id: 'cleaner',
        reason: 'suspicious',
      });
      assert.equal(res.status, 404, res.text);
      assert.ok(!res.text.includes('Deprecate after tampering'));
      const row = await knexOf(drop)('memories').where({ id }).first();
      assert.equal(row.is_deprecated, true);
      assert.equal((await integrityFailures(knexOf(drop), id))[0]?.details.route, 'deprecate');
    });

    it('legacy v1 rows pass; unsigned rows pass without INTEGRITY_REQUIRE_SIGNED', async () => {
      const knex = knexOf(drop);
      const v1 = await add(drop.admin, { content: 'Legacy row signed with v1.', agent_id: 'old' });
      await knex('memories')
        .where({ id: v1 })
        .update({
          integrity_hash: signV1(drop.integrityKey, {
            project_id: 'default',
            agent_id: 'old',
            content: 'Legacy row signed with v1.',
          }),
        });
      const unsigned = await add(drop.admin, {
        content: 'Row written before signing existed.',
        agent_id: 'old',
      });
      await knex('memories').where({ id: unsigned }).update({ integrity_hash: null });
      assert.equal((await drop.admin.get(`/memories/${v1}?agent_id=old`)).status, 200);
      assert.equal((await drop.admin.get(`/memories/${unsigned}?agent_id=old`)).status, 200);
      const rows = await exportAll(drop.admin, { agent_id: 'old' });
      const byId = new Map(rows.map((r) => [r.id, r]));
      assert.deepEqual([byId.get(v1)?.integrity_status, byId.get(v1)?.integrity_format], ['valid', 'v1']);
      assert.deepEqual(
        [byId.get(unsigned)?.integrity_status, byId.get(unsigned)?.integrity_format],
        ['unsigned', 'none'],
      );
      assert.equal((await integrityFailures(knex, unsigned)).length, 0);
    });

    it('flag mode: edited rows are returned marked invalid and recorded; with INTEGRITY_REQUIRE_SIGNED unsigned rows fail too', async () => {
      const knex = knexOf(flag);
      const content = 'Flag mode target: rotate the signing keys quarterly.';
      const edited = await add(flag.admin, { content, agent_id: 'writer', scope: 'global' });
      const unsigned = await add(flag.admin, {
        content: 'Flag mode unsigned row.',
        agent_id: 'writer',
        scope: 'global',
      });
      const v1 = await add(flag.admin, {
        content: 'Flag mode legacy row.',
        agent_id: 'writer',
        scope: 'global',
      });
      const intact = await add(flag.admin, {
        content: 'Flag mode intact row.',
        agent_id: 'writer',
        scope: 'global',
      });
      await tamper(knex, edited, 'content');
      await knex('memories').where({ id: unsigned }).update({ integrity_hash: null });
      await knex('memories')
        .where({ id: v1 })
        .update({
          integrity_hash: signV1(flag.integrityKey, {
            project_id: 'default',
            agent_id: 'writer',
            content: 'Flag mode legacy row.',
          }),
        });

      const statusOf = async (id: string) => {
        const res = await flag.admin.get<MemoryBody>(`/memories/${id}`);
        assert.equal(res.status, 200, res.text);
        return res.body.integrity_status;
      };
      assert.equal(await statusOf(edited), 'invalid');
      assert.equal(await statusOf(unsigned), 'invalid');
      assert.equal(await statusOf(v1), 'valid');
      assert.equal(await statusOf(intact), 'valid');
      assert.equal((await integrityFailures(knex, edited))[0]?.details.status, 'invalid');
      assert.equal((await integrityFailures(knex, unsigned))[0]?.details.status, 'unsigned');
      assert.equal((await integrityFailures(knex, intact)).length, 0);

      const q = await flag.admin.post<ListBody>('/memories/query', { query: content, top_k: 100 });
      assert.equal(q.body.memories.find((m) => m.id === edited)?.integrity_status, 'invalid');

      const moved = await add(flag.admin, {
        content: 'Moved to another project by SQL.',
        agent_id: 'writer',
      });
      await tamper(knex, moved, 'project_id');
      const other = await flagOther.get<MemoryBody>(`/memories/${moved}`);
      assert.equal(other.status, 200);
      assert.equal(other.body.integrity_status, 'invalid');
      const rows = await exportAll(flag.admin);
      assert.equal(rows.find((r) => r.id === unsigned)?.integrity_status, 'unsigned');
    });
  });
}
