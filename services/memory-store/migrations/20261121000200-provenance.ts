import type { Migration } from '@engram/db';

/** One immutable provenance row per memory; a trigger refuses every UPDATE. */
export const provenance: Migration = {
  name: '20261121000200-provenance',
  async up(knex) {
    await knex.raw(`
      create table memory_provenance (
        memory_id uuid primary key references memories(id) on delete cascade,
        project_id text not null,
        channel text not null,
        kind text not null,
        agent_id text not null,
        api_key_id text not null,
        source_run_id text,
        interaction_id text,
        depth integer not null default 0 check (depth >= 0),
        verdict jsonb not null,
        taint text[] not null default '{}',
        policy_version text not null,
        signature text not null,
        created_at timestamptz not null default now()
      )`);
    await knex.raw(`
      create function memory_provenance_refuse_update() returns trigger language plpgsql as $$
      begin
        raise exception 'memory_provenance rows are immutable' using errcode = 'raise_exception';
      end $$`);
    await knex.raw(`create trigger memory_provenance_immutable before update on memory_provenance
      for each row execute function memory_provenance_refuse_update()`);
  },
  async down(knex) {
    await knex.raw('drop table memory_provenance');
    await knex.raw('drop function memory_provenance_refuse_update()');
  },
};
