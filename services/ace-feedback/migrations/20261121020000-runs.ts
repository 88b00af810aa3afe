import type { Migration } from '@engram/db';

/**
 * Runs: which memories an agent used for a task, and how it went. status is started or completed
 * (the only transition, started -> completed, is a conditional update, so votes are cast once).
 */
export const runs: Migration = {
  name: '20261121020000-runs',
  async up(knex) {
    await knex.raw(`
      create table runs (
        project_id text not null,
        run_id text not null,
        agent_id text not null,
        task_type text not null,
        memory_ids_used uuid[] not null default '{}',
        status text not null default 'started' check (status in ('started', 'completed')),
        success boolean,
        evaluation jsonb,
        reflection_id uuid,
        api_key_id text not null,
        started_at timestamptz not null default now(),
        completed_at timestamptz,
        primary key (project_id, run_id)
      )`);
    await knex.raw("create index runs_task_type on runs (project_id, task_type) where status = 'completed'");
  },
  async down(knex) {
    await knex.raw('drop table runs');
  },
};
