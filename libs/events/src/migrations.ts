import type { Knex } from 'knex';
import type { MigrationSet } from '@engram/db';

/**
 * audit_events is the audit log (GET /security/audit lists it) and the transactional outbox (rows
 * with published_at null wait for the relay). Runs on PostgreSQL and PGlite alike.
 */
export const eventsMigrations: MigrationSet = {
  owner: 'events',
  migrations: [
    {
      name: '20261121000000_audit_events',
      async up(knex: Knex) {
        await knex.schema.createTable('audit_events', (t) => {
          t.uuid('event_id').primary();
          t.text('event_type').notNullable();
          t.text('project_id').notNullable();
          t.text('agent_id');
          t.text('memory_id');
          t.text('api_key_id');
          t.jsonb('details').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
          t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
          t.timestamp('published_at', { useTz: true });
          t.integer('publish_attempts').notNullable().defaultTo(0);
        });
        // The audit listing: newest first within a project, event_id breaks ties (keyset cursor).
        await knex.raw(
          'create index audit_events_project_created_idx on audit_events (project_id, created_at desc, event_id desc)',
        );
        // The relay's queue: only unpublished rows, in the order they are relayed.
        await knex.raw(
          'create index audit_events_unpublished_idx on audit_events (created_at, event_id) where published_at is null',
        );
        // The audit listing filtered by type.
        await knex.raw(
          'create index audit_events_project_type_created_idx on audit_events (project_id, event_type, created_at desc)',
        );
      },
      async down(knex: Knex) {
        await knex.schema.dropTableIfExists('audit_events');
      },
    },
  ],
};
