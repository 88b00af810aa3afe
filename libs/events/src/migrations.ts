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
    {
      // The dead letter: a column, not a table, so the audit log stays whole (the event is still listed
      // and still an audit record) while the relay no longer tries it. failed_attempts counts only the
      // failures of that event alone (never an outage of the whole publisher); last_error is the
      // log-safe summary of its latest failure. The unpublished index is kept as it is (rebuilding it
      // would scan the whole log at deploy): dead letters are few, the relay skips them in it.
      name: '20261124000000_audit_events_dead_letter',
      async up(knex: Knex) {
        await knex.schema.alterTable('audit_events', (t) => {
          t.integer('failed_attempts').notNullable().defaultTo(0);
          t.timestamp('dead_lettered_at', { useTz: true });
          t.text('last_error');
        });
        await knex.raw(
          'create index audit_events_dead_letter_idx on audit_events (dead_lettered_at, event_id) where dead_lettered_at is not null',
        );
        // What an operator looks at (and requeues from: set dead_lettered_at and failed_attempts back).
        await knex.raw(
          `create view audit_events_dead_letter as
             select event_id, event_type, project_id, memory_id, created_at, dead_lettered_at, failed_attempts,
               publish_attempts, last_error
             from audit_events where dead_lettered_at is not null`,
        );
      },
      async down(knex: Knex) {
        await knex.raw('drop view if exists audit_events_dead_letter');
        await knex.raw('drop index if exists audit_events_dead_letter_idx');
        await knex.schema.alterTable('audit_events', (t) => {
          t.dropColumn('last_error');
          t.dropColumn('dead_lettered_at');
          t.dropColumn('failed_attempts');
        });
      },
    },
  ],
};
