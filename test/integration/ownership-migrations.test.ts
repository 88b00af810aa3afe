import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Metadata } from '@grpc/grpc-js';
import { KeyAuthenticator, KnexKeyLookup } from '@engram/access';
import { aceMigrations } from '@engram/ace-feedback';
import { actingAgent, generateApiKey, hashApiKey } from '@engram/auth';
import { migrateLatest, type Database, type MigrationSet } from '@engram/db';
import { eventsMigrations } from '@engram/events';
import { agentlessKeysWarning, memoryStoreMigrations } from '@engram/memory-store';
import { ENGINES, openEngineDatabase, type EngineDatabase } from '@engram/testing';

/** The set without the migrations named from `first` on: the schema an existing installation has. */
const upTo = (set: MigrationSet, first: string): MigrationSet => ({
  owner: set.owner,
  migrations: set.migrations.filter((m) => m.name < first),
});

const KEY_AGENTS = '20261124000000-key-agents';
const FEATURE_OWNER = '20261124010000-feature-owner';

/**
 * What the migrations of the ownership rules make of an existing installation's rows: unbound keys
 * act for no agent, features get an owner, and each voter keeps one ballot per memory.
 */
for (const engine of ENGINES) {
  describe(`ownership migrations on existing rows (${engine})`, function () {
    this.timeout(60_000);
    let store: EngineDatabase;
    let db: Database;
    const raw = { internal: generateApiKey(), bound: generateApiKey(), untrusted: generateApiKey() };
    const ids = { internal: randomUUID(), bound: randomUUID(), untrusted: randomUUID() };
    const memory = randomUUID();

    before(async () => {
      store = await openEngineDatabase(engine);
      db = store.db;
      await migrateLatest(db, eventsMigrations);
      await migrateLatest(db, upTo(memoryStoreMigrations, KEY_AGENTS));
      await migrateLatest(db, upTo(aceMigrations, FEATURE_OWNER));
      await db.knex('projects').insert({ project_id: 'p', name: 'p' });
      const key = (kind: keyof typeof raw, trust: string, bound: string | null) => ({
        key_id: ids[kind],
        project_id: 'p',
        name: kind,
        key_hash: hashApiKey(raw[kind]),
        prefix: 'egk_',
        trust_level: trust,
        bound_agent_id: bound,
      });
      await db
        .knex('api_keys')
        .insert([
          key('internal', 'internal', null),
          key('bound', 'internal', 'alice'),
          key('untrusted', 'untrusted', null),
        ]);
      const feature = (id: string, keyId: string) => ({
        project_id: 'p',
        feature_id: id,
        api_key_id: keyId,
      });
      await db.knex('features').insert([feature('by-bound', ids.bound), feature('by-unbound', ids.internal)]);
      const vote = (voter: string, task: string, vote: string, at: string) => ({
        project_id: 'p',
        memory_id: memory,
        voter_agent_id: voter,
        task_id: task,
        vote,
        api_key_id: ids.internal,
        updated_at: at,
      });
      await db
        .knex('memory_votes')
        .insert([
          vote('bob', 't1', 'helpful', '2026-01-01T00:00:00Z'),
          vote('bob', 't2', 'harmful', '2026-01-03T00:00:00Z'),
          vote('bob', 't3', 'helpful', '2026-01-02T00:00:00Z'),
          vote('carol', 't1', 'helpful', '2026-01-01T00:00:00Z'),
        ]);
      await migrateLatest(db, memoryStoreMigrations);
      await migrateLatest(db, aceMigrations);
    });
    after(() => store?.close());

    it('existing unbound untrusted and internal keys act for no agent until replaced (and memory-store says so)', async () => {
      const rows = (await db.knex('api_keys').select('name', 'agent_ids', 'any_agent').orderBy('name')) as {
        name: string;
        agent_ids: string[];
        any_agent: boolean;
      }[];
      assert.deepEqual(
        rows.map((r) => [r.name, r.agent_ids, r.any_agent]),
        [
          ['bound', [], false],
          ['internal', [], false],
          ['untrusted', [], false],
        ],
      );
      const auth = new KeyAuthenticator({ keys: new KnexKeyLookup(db.knex) });
      const principalOf = (key: string) => {
        const md = new Metadata();
        md.set('authorization', `Bearer ${key}`);
        return auth.authenticate(md);
      };
      for (const key of [raw.internal, raw.untrusted]) {
        const p = await principalOf(key);
        assert.throws(() => actingAgent(p, 'alice'), { reason: 'AGENT_MISMATCH' });
        assert.equal(actingAgent(p, undefined), `key:${p.keyId}`);
      }
      assert.equal(actingAgent(await principalOf(raw.bound), 'alice'), 'alice');
      assert.match(
        agentlessKeysWarning(2) ?? '',
        /^2 unbound untrusted or internal API keys act for no agent/,
      );
      assert.equal(agentlessKeysWarning(0), undefined);
    });

    it('features get an owner: the agent of a bound creating key, else that key itself', async () => {
      const rows = (await db.knex('features').select('feature_id', 'agent_id').orderBy('feature_id')) as {
        feature_id: string;
        agent_id: string;
      }[];
      assert.deepEqual(
        rows.map((r) => [r.feature_id, r.agent_id]),
        [
          ['by-bound', 'alice'],
          ['by-unbound', `key:${ids.internal}`],
        ],
      );
    });

    it('each voter keeps one ballot per memory, its latest vote', async () => {
      const rows = (await db
        .knex('memory_votes')
        .select('voter_agent_id', 'task_id', 'vote')
        .orderBy('voter_agent_id')) as { voter_agent_id: string; task_id: string; vote: string }[];
      assert.deepEqual(
        rows.map((r) => `${r.voter_agent_id}/${r.task_id}/${r.vote}`),
        ['bob/t2/harmful', 'carol/t1/helpful'],
      );
      await assert.rejects(
        db.knex('memory_votes').insert({
          project_id: 'p',
          memory_id: memory,
          voter_agent_id: 'bob',
          task_id: 't9',
          vote: 'helpful',
          api_key_id: ids.internal,
        }),
        /duplicate key|unique/i,
        'a second ballot of the same voter is refused by the primary key',
      );
    });
  });
}
