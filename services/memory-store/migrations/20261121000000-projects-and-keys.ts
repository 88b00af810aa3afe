import type { Migration } from '@engram/db';

export const projectsAndKeys: Migration = {
  name: '20261121000000-projects-and-keys',
  async up(knex) {
    await knex.schema.createTable('projects', (t) => {
      t.text('project_id').primary();
      t.text('name').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.schema.createTable('api_keys', (t) => {
      t.uuid('key_id').primary();
      t.text('project_id').notNullable().references('projects.project_id');
      t.text('name').notNullable();
      t.text('key_hash').notNullable().unique();
      t.text('prefix').notNullable();
      t.text('trust_level').notNullable();
      t.text('bound_agent_id');
      t.timestamp('expires_at', { useTz: true });
      t.timestamp('revoked_at', { useTz: true });
      t.boolean('instance_admin').notNullable().defaultTo(false);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['project_id', 'created_at']);
    });
    await knex.raw(
      `alter table api_keys add constraint api_keys_trust_level_check
         check (trust_level in ('untrusted','internal','privileged','system'))`,
    );
  },
  async down(knex) {
    await knex.schema.dropTable('api_keys');
    await knex.schema.dropTable('projects');
  },
};
