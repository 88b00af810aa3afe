import type { Migration } from '@engram/db';

/**
 * Whom an unbound key acts for (docs/decisions.md, "what an unbound key may do"): agent_ids, the
 * explicit list of an unbound internal key, or any_agent, set only when the key was created so.
 * Existing unbound internal and untrusted keys get neither: they act for no agent until the
 * operator re-creates them bound, with agent_ids, or with any_agent (memory-store warns at start
 * while such keys exist). A bound key lists nothing: the check constraint keeps the three apart.
 */
export const keyAgents: Migration = {
  name: '20261124000000-key-agents',
  async up(knex) {
    await knex.raw(`alter table api_keys add column agent_ids text[] not null default '{}'`);
    await knex.raw(`alter table api_keys add column any_agent boolean not null default false`);
    await knex.raw(
      `alter table api_keys add constraint api_keys_agents_check check (
         (bound_agent_id is null or (cardinality(agent_ids) = 0 and not any_agent))
         and not (any_agent and cardinality(agent_ids) > 0))`,
    );
  },
  async down(knex) {
    await knex.raw('alter table api_keys drop constraint api_keys_agents_check');
    await knex.raw('alter table api_keys drop column any_agent');
    await knex.raw('alter table api_keys drop column agent_ids');
  },
};
