import type { Migration } from '@engram/db';

/**
 * memories: the embedding column is created untyped; the store pins its embedding space at first
 * start (embedding_space) and only then types the column as vector(<dimensions>) and builds the HNSW
 * index, so one code base serves any model.
 */
export const memories: Migration = {
  name: '20261121000100-memories',
  async up(knex) {
    await knex.raw('create extension if not exists vector');
    await knex.schema.createTable('embedding_space', (t) => {
      t.integer('id').primary();
      t.text('provider').notNullable();
      t.text('model').notNullable();
      t.integer('dimensions').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.raw('alter table embedding_space add constraint embedding_space_singleton check (id = 1)');
    await knex.raw(`
      create table memories (
        id uuid primary key,
        project_id text not null,
        namespace text not null,
        agent_id text not null,
        content text not null,
        content_key text not null,
        memory_type text not null,
        scope text not null check (scope in ('agent-private','agent-shared','global')),
        trust_level text not null,
        metadata jsonb not null default '{}'::jsonb,
        content_flags text[] not null default '{}',
        shared_with text[] not null default '{}',
        is_deprecated boolean not null default false,
        superseded_by uuid,
        deprecation_reason text,
        session_id text,
        sequence_number bigint,
        entity_id text,
        error_pattern text,
        source_trajectory_id text,
        integrity_hash text,
        embedding vector,
        content_tsv tsvector generated always as (to_tsvector('simple', content)) stored,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    await knex.raw(
      'create index memories_project_ns_created on memories (project_id, namespace, created_at desc)',
    );
    await knex.raw('create index memories_project_agent on memories (project_id, agent_id)');
    await knex.raw(
      'create index memories_project_session on memories (project_id, session_id, sequence_number) where session_id is not null',
    );
    await knex.raw(
      'create index memories_project_entity on memories (project_id, entity_id) where entity_id is not null',
    );
    await knex.raw('create index memories_tsv on memories using gin (content_tsv)');
    await knex.raw(
      `create index memories_flagged on memories (project_id, created_at desc) where cardinality(content_flags) > 0`,
    );
    // Race-safe deduplication: one live row per normalized content, author, scope, type and namespace.
    await knex.raw(`create unique index memories_dedup on memories
      (project_id, namespace, agent_id, scope, memory_type, content_key) where not is_deprecated`);
  },
  async down(knex) {
    await knex.raw('drop table memories');
    await knex.raw('drop table embedding_space');
  },
};
