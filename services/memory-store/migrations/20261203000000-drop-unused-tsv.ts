import type { Migration } from '@engram/db';

/**
 * memories.content_tsv (a stored to_tsvector of the content) and its GIN index memories_tsv were
 * written on every insert and read by no query: the lexical channel reads memory_postings (the
 * bm25-postings migration). Dropping them leaves the table and its indexes about a fifth smaller
 * (70 MB against 56 MB at 13,000 memories) and takes a tsvector out of every row, which helps keep
 * the row, vector included, on its heap page (libs/db/src/embedding-storage.ts). Dropping a column
 * only marks it dropped; no row is rewritten.
 */
export const dropUnusedTsv: Migration = {
  name: '20261203000000-drop-unused-tsv',
  async up(knex) {
    await knex.raw('drop index if exists memories_tsv');
    await knex.raw('alter table memories drop column if exists content_tsv');
  },
  async down(knex) {
    await knex.raw(
      `alter table memories add column content_tsv tsvector generated always as (to_tsvector('simple', content)) stored`,
    );
    await knex.raw('create index memories_tsv on memories using gin (content_tsv)');
  },
};
