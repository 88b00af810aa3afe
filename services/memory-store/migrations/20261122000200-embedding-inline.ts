import { keepEmbeddingInline, type Migration } from '@engram/db';

/**
 * Vectors on the heap page instead of the toast table (keepEmbeddingInline in @engram/db explains
 * why). Only the column's storage and the table's toast target change; existing rows keep their
 * layout until rewritten, so the migration is instant on a large store.
 */
export const embeddingInline: Migration = {
  name: '20261122000200-embedding-inline',
  up: (knex) => keepEmbeddingInline(knex),
  down: async (knex) => {
    await knex.raw('alter table memories alter column embedding set storage external');
    await knex.raw('alter table memories reset (toast_tuple_target)');
  },
};
