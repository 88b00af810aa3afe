import type { Knex } from 'knex';
import type { MigrationSet } from '@engram/db';

/**
 * idempotency_records holds one row per (project, API key, Idempotency-Key): the request it was first
 * used with (RPC path and SHA-256 fingerprint), whether that request is still running (owner and
 * renewed_at of the claim) and, once done, its answer (response bytes or a replayable status).
 * Every process applies it (libs/platform), as every service may take a key. PostgreSQL and PGlite.
 */
export const idempotencyMigrations: MigrationSet = {
  owner: 'idempotency',
  migrations: [
    {
      name: '20261122000000_idempotency_records',
      async up(knex: Knex) {
        await knex.schema.createTable('idempotency_records', (t) => {
          t.text('project_id').notNullable();
          t.text('api_key_id').notNullable();
          t.text('idempotency_key').notNullable();
          t.text('method').notNullable();
          t.binary('fingerprint').notNullable();
          t.text('state').notNullable();
          t.uuid('owner').notNullable();
          t.binary('response');
          t.integer('status_code');
          t.text('status_message');
          t.binary('status_details');
          t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
          t.timestamp('renewed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
          t.timestamp('expires_at', { useTz: true }).notNullable();
          t.primary(['project_id', 'api_key_id', 'idempotency_key']);
        });
        await knex.raw(
          `alter table idempotency_records add constraint idempotency_records_state_check check (state in ('in_progress', 'done'))`,
        );
        // The sweep of expired records.
        await knex.raw('create index idempotency_records_expires_idx on idempotency_records (expires_at)');
      },
      async down(knex: Knex) {
        await knex.schema.dropTableIfExists('idempotency_records');
      },
    },
    {
      // Answers are sealed (AnswerSeal) from now on; records written before stay readable as they are.
      name: '20261126000000_idempotency_sealed_answers',
      async up(knex: Knex) {
        await knex.schema.alterTable('idempotency_records', (t) => {
          t.boolean('response_sealed').notNullable().defaultTo(false);
        });
      },
      async down(knex: Knex) {
        await knex.schema.alterTable('idempotency_records', (t) => {
          t.dropColumn('response_sealed');
        });
      },
    },
  ],
};
