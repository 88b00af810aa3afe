import type { Migration } from '@engram/db';

/** Progress sessions: structured session state of one agent (completed, in progress, next, blocked). */
export const progressSessions: Migration = {
  name: '20261121020100-progress-sessions',
  async up(knex) {
    await knex.raw(`
      create table progress_sessions (
        project_id text not null,
        session_id text not null,
        agent_id text not null,
        completed text[] not null default '{}',
        in_progress text not null default '',
        next text[] not null default '{}',
        blocked jsonb not null default '[]'::jsonb,
        summary text not null default '',
        api_key_id text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        primary key (project_id, session_id)
      )`);
  },
  async down(knex) {
    await knex.raw('drop table progress_sessions');
  },
};
