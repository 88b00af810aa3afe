import type { Migration } from '@engram/db';

/** One vote per (memory, voter, task_id); a repeat replaces the earlier vote. */
export const votes: Migration = {
  name: '20261121010000-votes',
  async up(knex) {
    await knex.raw(`
      create table memory_votes (
        project_id text not null,
        memory_id uuid not null,
        voter_agent_id text not null,
        task_id text not null default '',
        vote text not null check (vote in ('helpful', 'harmful')),
        context text not null default '',
        api_key_id text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        primary key (project_id, memory_id, voter_agent_id, task_id)
      )`);
    await knex.raw('create index memory_votes_memory on memory_votes (project_id, memory_id)');
  },
  async down(knex) {
    await knex.raw('drop table memory_votes');
  },
};
