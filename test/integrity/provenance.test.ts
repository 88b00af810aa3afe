import assert from 'node:assert/strict';
import { verifyProvenance } from '@engram/integrity';
import { provenanceCanonical } from '@engram/memory-store';
import { ENGINES } from '@engram/testing';
import { add, knexOf } from './support.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

interface ProvenanceRow {
  memory_id: string;
  project_id: string;
  channel: string;
  kind: string;
  agent_id: string;
  api_key_id: string;
  source_run_id: string | null;
  interaction_id: string | null;
  depth: number;
  verdict: Record<string, unknown>;
  taint: string[];
  policy_version: string;
  signature: string;
  created_at: Date;
}

for (const engine of ENGINES) {
  describe(`provenance (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    before(async () => {
      t = await startTestEngram(engine);
    });
    after(() => t?.stop());

    const provenanceOf = (id: string): Promise<ProvenanceRow[]> =>
      knexOf(t)('memory_provenance').where({ memory_id: id });

    it('holds every field of the specification, signed with its own domain-separated HMAC', async () => {
      const id = await add(t.admin, {
        content: 'Provenance fields check.',
        agent_id: 'prov',
        trust_level: 'internal',
      });
      const rows = await provenanceOf(id);
      assert.equal(rows.length, 1);
      const p = rows[0]!;
      assert.deepEqual(
        [p.channel, p.kind, p.agent_id, p.api_key_id, p.depth, p.policy_version],
        ['rest', 'add', 'prov', 'bootstrap', 0, t.engram.policyVersion],
      );
      assert.ok(p.interaction_id, 'the interaction (request id) is recorded');
      assert.equal(typeof p.verdict, 'object');
      assert.ok(p.taint.includes('internal'), 'the taint set holds the trust label');
      // eslint-disable-next-line @typescript-eslint/no-unused-vars
      const { memory_id, project_id, signature, created_at, ...record } = p;
      const canonical = provenanceCanonical(memory_id, project_id, record);
      assert.equal(verifyProvenance(t.integrityKey, signature, canonical), true);
      assert.equal(
        verifyProvenance(t.integrityKey, signature, canonical.replace('"depth":0', '"depth":1')),
        false,
      );
    });

    it('refuses every UPDATE of a provenance row (database trigger)', async () => {
      const id = await add(t.admin, { content: 'Immutable provenance.', agent_id: 'prov' });
      await assert.rejects(
        knexOf(t)('memory_provenance').where({ memory_id: id }).update({ kind: 'import' }),
        /immutable/,
      );
      await assert.rejects(
        knexOf(t)('memory_provenance')
          .where({ memory_id: id })
          .update({ taint: knexOf(t).raw(`'{}'::text[]`) }),
        /immutable/,
      );
      assert.equal((await provenanceOf(id))[0]!.kind, 'add');
    });

    it('a deduplicated write records DEDUPLICATED and keeps the first provenance', async () => {
      const second = await t.admin.createKey({ trust_level: 'system', name: 'second' });
      const body = { content: 'Deduplicate me, keep my origin.', agent_id: 'dup' };
      const first = await add(t.admin, body);
      const before = await provenanceOf(first);
      const again = await second.post<{ id: string; deduplicated: boolean }>('/memories/add', body);
      assert.deepEqual([again.body.id, again.body.deduplicated], [first, true]);
      assert.deepEqual(await provenanceOf(first), before);
      assert.equal(before[0]!.api_key_id, 'bootstrap');
      const dedup: { api_key_id: string }[] = await knexOf(t)('audit_events').where({
        memory_id: first,
        event_type: 'DEDUPLICATED',
      });
      assert.equal(dedup.length, 1);
      assert.notEqual(dedup[0]!.api_key_id, 'bootstrap');
    });
  });
}
