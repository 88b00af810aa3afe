import type { Migration } from '@engram/db';

/**
 * One ballot per (memory, voter): an agent's vote on a memory is the last one it cast, directly or by
 * completing a run, whatever the task_id (kept as the task of the standing vote). Before, each task_id
 * counted once, so one agent could push any memory's effectiveness toward 1 or -1 (docs/decisions.md).
 * The migration keeps each voter's latest vote per memory.
 */
export const oneBallotPerVoter: Migration = {
  name: '20261124010100-one-ballot-per-voter',
  async up(knex) {
    await knex.raw(`
      delete from memory_votes v using memory_votes w
       where v.project_id = w.project_id and v.memory_id = w.memory_id
         and v.voter_agent_id = w.voter_agent_id
         and (v.updated_at, v.task_id) < (w.updated_at, w.task_id)`);
    await knex.raw('alter table memory_votes drop constraint memory_votes_pkey');
    await knex.raw('alter table memory_votes add primary key (project_id, memory_id, voter_agent_id)');
  },
  async down(knex) {
    await knex.raw('alter table memory_votes drop constraint memory_votes_pkey');
    await knex.raw(
      'alter table memory_votes add primary key (project_id, memory_id, voter_agent_id, task_id)',
    );
  },
};
