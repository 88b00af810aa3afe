import type { Migration } from '@engram/db';

/** Features: pass/fail state of a project's features (status pending, complete or failed). */
export const features: Migration = {
  name: '20261121020200-features',
  async up(knex) {
    await knex.raw(`
      create table features (
        project_id text not null,
        feature_id text not null,
        description text not null default '',
        test_steps text[] not null default '{}',
        status text not null default 'pending' check (status in ('pending', 'complete', 'failed')),
        failure_reason text,
        verified_by text,
        api_key_id text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        primary key (project_id, feature_id)
      )`);
    await knex.raw('create index features_status on features (project_id, status, feature_id)');
  },
  async down(knex) {
    await knex.raw('drop table features');
  },
};
