import type { Knex } from 'knex';

/**
 * Rows up to this size stay whole on their heap page; above it PostgreSQL compresses and moves the
 * text columns (content, metadata) out of line first.
 */
export const MEMORIES_TOAST_TUPLE_TARGET = 4096;

/**
 * Keeps memories.embedding on the heap page. pgvector declares its type with storage EXTERNAL, and a
 * typical memory row (a 384-dimension vector is 1.5 kB) passes PostgreSQL's 2 kB toast threshold, so
 * every vector went to the toast table: an exact scan (small namespaces, filtered typed queries) then
 * made an index lookup per row, and a write an extra toast insert. Storage MAIN and a 4 kB target
 * keep typical rows whole (an exact scan of 3,000 rows: 10.8 ms -> 4.7 ms); a long content is moved out
 * of line before the vector is. ALTER COLUMN TYPE resets a column's storage to its type's, so every
 * place that types or swaps the column calls this afterwards (pin, reembed, migration). Rows written
 * before keep their layout until rewritten (VACUUM FULL memories).
 */
export async function keepEmbeddingInline(knex: Knex): Promise<void> {
  await knex.raw('alter table memories alter column embedding set storage main');
  await knex.raw(`alter table memories set (toast_tuple_target = ${MEMORIES_TOAST_TUPLE_TARGET})`);
}
