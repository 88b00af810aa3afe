import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { aceMigrations } from '@engram/ace-feedback';
import { migrateLatest, type Database } from '@engram/db';
import { EFFECTIVENESS_SQL, loadEffectiveness } from '@engram/memories';
import { effectivenessScore } from '@engram/memory-model';
import { ENGINES, openEngineDatabase, type EngineDatabase } from '@engram/testing';

/**
 * EFFECTIVENESS_SQL (the form reads sort and filter by) and effectivenessScore (the one formula)
 * must give the same number for the same votes, or a playbook's order and its min_effectiveness
 * filter would disagree with the effectiveness a vote answers with.
 */
const VOTES: readonly [helpful: number, harmful: number][] = [
  [0, 0],
  [1, 0],
  [0, 1],
  [3, 1],
  [2, 5],
  [7, 0],
  [4, 4],
];

for (const engine of ENGINES) {
  describe(`effectiveness in SQL and in TypeScript (${engine})`, function () {
    this.timeout(60_000);
    let store: EngineDatabase | undefined;
    let db: Database;
    const memoryIds = VOTES.map(() => randomUUID());

    before(async () => {
      store = await openEngineDatabase(engine);
      db = store.db;
      await migrateLatest(db, aceMigrations);
      const rows = VOTES.flatMap(([helpful, harmful], m) =>
        [...Array<string>(helpful).fill('helpful'), ...Array<string>(harmful).fill('harmful')].map(
          (vote, voter) => ({
            project_id: 'p',
            memory_id: memoryIds[m],
            voter_agent_id: `voter-${voter}`,
            vote,
            api_key_id: 'k',
          }),
        ),
      );
      // Votes on the same memory ids in another project must not count.
      rows.push({
        project_id: 'other',
        memory_id: memoryIds[0],
        voter_agent_id: 'x',
        vote: 'harmful',
        api_key_id: 'k',
      });
      await db.knex('memory_votes').insert(rows);
    });
    after(async () => {
      await store?.close();
    });

    it('agrees on every vote count', async () => {
      // A stand-in for the memories table: EFFECTIVENESS_SQL correlates on its project_id and id.
      const values = memoryIds.map(() => '(?, ?::uuid)').join(', ');
      const res: { rows: { id: string; effectiveness: number | string }[] } = await db.knex.raw(
        `select memories.id::text as id, ${EFFECTIVENESS_SQL} as effectiveness
           from (values ${values}) as memories(project_id, id)`,
        memoryIds.flatMap((id) => ['p', id]),
      );
      const sql = new Map(res.rows.map((r) => [r.id, Number(r.effectiveness)]));
      const loaded = await loadEffectiveness(db.knex, 'p', memoryIds);
      VOTES.forEach(([helpful, harmful], m) => {
        const id = memoryIds[m]!;
        const expected = effectivenessScore(helpful, harmful);
        assert.ok(Math.abs(sql.get(id)! - expected) < 1e-12, `SQL for ${helpful}/${harmful}: ${sql.get(id)}`);
        const l = loaded.get(id);
        if (helpful + harmful === 0) assert.equal(l, undefined, 'an unvoted memory has no vote row');
        else assert.deepEqual(l, { helpful, harmful, score: expected });
      });
    });
  });
}
