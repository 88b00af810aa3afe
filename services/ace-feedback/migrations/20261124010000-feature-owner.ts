import type { Migration } from '@engram/db';

/**
 * Features belong to an agent, like runs and progress sessions: only a key that may act as the owner
 * (or a privileged key) reads or changes one (docs/decisions.md). Existing features get the agent
 * their creating key was bound to, else that key's own identity `key:<key_id>`: readable by that key
 * and by privileged keys, never by the rest of the project as before.
 */
export const featureOwner: Migration = {
  name: '20261124010000-feature-owner',
  async up(knex) {
    await knex.raw('alter table features add column agent_id text');
    // api_keys belongs to memory-store; on a fresh database it may not exist yet (and features is empty).
    const keys = await knex.raw<{ rows: { present: boolean }[] }>(
      `select to_regclass('api_keys') is not null as present`,
    );
    if (keys.rows[0]?.present === true) {
      await knex.raw(`
        update features f set agent_id = k.bound_agent_id
          from api_keys k where k.key_id::text = f.api_key_id and k.bound_agent_id is not null`);
    }
    await knex.raw(`update features set agent_id = 'key:' || api_key_id where agent_id is null`);
    await knex.raw('alter table features alter column agent_id set not null');
    await knex.raw('create index features_owner on features (project_id, agent_id, feature_id)');
  },
  async down(knex) {
    await knex.raw('drop index features_owner');
    await knex.raw('alter table features drop column agent_id');
  },
};
