import type { Knex } from 'knex';
import type { Migration } from '@engram/db';

/**
 * The planner's price of one cosine distance (pgvector declares it as cheap as an integer
 * comparison). A 384-dimension distance costs microseconds, so with the declared price PostgreSQL
 * preferred an exact scan-and-sort over the HNSW index on namespaces of a few thousand rows (38 ms
 * against 2 ms at 10,000). Priced at 100, exact scans still win on small sets, where they are cheap.
 * Altering the function needs its owner (the role that created the extension); without that right
 * the statement is skipped with a notice and only the planning of small namespaces is affected.
 */
const setCost = async (knex: Knex, cost: number) => {
  await knex.raw(`
    do $$
    begin
      alter function cosine_distance(vector, vector) cost ${cost};
    exception when insufficient_privilege then
      raise notice 'engram: not the owner of cosine_distance(vector, vector); its planner cost stays as declared';
    end $$`);
};

export const vectorDistanceCost: Migration = {
  name: '20261122000100-vector-distance-cost',
  up: (knex) => setCost(knex, 100),
  down: (knex) => setCost(knex, 1),
};
