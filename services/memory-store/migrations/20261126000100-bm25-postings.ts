import type { Migration } from '@engram/db';
import { BM25_B, BM25_K1, BM25_REFERENCE_LENGTH, LEXICAL_ANALYZER_STOP_WORDS } from '@engram/ranking';

/** Counter rows are split this many ways (by backend) so concurrent writers rarely wait on one row. */
const SHARDS = 8;

/** The columns a change of which changes a memory's terms or who may see it. */
const LEXICAL_COLUMNS = [
  'content',
  'is_deprecated',
  'scope',
  'agent_id',
  'shared_with',
  'namespace',
  'project_id',
];

/** The memories a statement added to (+1) or removed from (-1) the statistics: live rows only. */
const CHANGED: Record<'INSERT' | 'DELETE' | 'UPDATE', string> = {
  INSERT: `select n.id, n.project_id, n.namespace, n.content, n.scope, n.agent_id, n.shared_with, 1 as sign
             from new_rows n where not n.is_deprecated`,
  DELETE: `select o.id, o.project_id, o.namespace, o.content, o.scope, o.agent_id, o.shared_with, -1 as sign
             from old_rows o where not o.is_deprecated`,
  UPDATE: `select o.id, o.project_id, o.namespace, o.content, o.scope, o.agent_id, o.shared_with, -1 as sign
             from old_rows o join new_rows n using (id) where not o.is_deprecated and (${changedSql()})
           union all
           select n.id, n.project_id, n.namespace, n.content, n.scope, n.agent_id, n.shared_with, 1 as sign
             from new_rows n join old_rows o using (id) where not n.is_deprecated and (${changedSql()})`,
};

function changedSql(): string {
  return LEXICAL_COLUMNS.map((c) => `o.${c} is distinct from n.${c}`).join(' or ');
}

/** Adds the terms of `source` rows (id, project_id, namespace, content) to memory_postings. */
function insertPostings(source: string): string {
  return `insert into memory_postings (memory_id, project_id, namespace, term, tf, dl, impact)
    select s.id, s.project_id, s.namespace, x.term, x.tf, x.dl,
           x.tf / (x.tf + ${BM25_K1} * (1 - ${BM25_B} + ${BM25_B} * x.dl / ${BM25_REFERENCE_LENGTH}.0))
      from (${source}) s
      cross join lateral (select t.term, t.tf, sum(t.tf) over () as dl from engram_terms(s.content) t) x`;
}

/**
 * Applies the signed rows of `changed` to the document frequencies and the document counts and
 * lengths of every visibility part each row belongs to (engram_lexical_parts). Upserts run in key
 * order, so two writers lock counter rows in the same order and cannot deadlock.
 */
function accountSql(changed: string): string {
  return `with c as (${changed}),
    t as materialized (
      select c.id, c.project_id, c.namespace, c.sign,
             engram_lexical_parts(c.scope, c.agent_id, c.shared_with) as parts, x.term, x.tf
        from c left join lateral engram_terms(c.content) x on true),
    d as (
      insert into lexical_df as f (project_id, namespace, part, term, shard, df)
      select project_id, namespace, p, term, pg_backend_pid() % ${SHARDS}, sum(sign)
        from t cross join unnest(parts) p where term is not null
       group by 1, 2, 3, 4 having sum(sign) <> 0 order by 1, 2, 3, 4
      on conflict (project_id, namespace, part, term, shard) do update set df = f.df + excluded.df
      returning 1)
    insert into lexical_docs as s (project_id, namespace, part, shard, n, total_len)
    select project_id, namespace, p, pg_backend_pid() % ${SHARDS}, sum(sign), sum(sign * dl)
      from (select id, project_id, namespace, sign, parts, coalesce(sum(tf), 0) as dl
              from t group by id, project_id, namespace, sign, parts) doc
     cross join unnest(parts) p
     group by 1, 2, 3 order by 1, 2, 3
    on conflict (project_id, namespace, part, shard)
      do update set n = s.n + excluded.n, total_len = s.total_len + excluded.total_len`;
}

/**
 * The statements that index `rows` (a select of id, project_id, namespace, content, scope,
 * agent_id, shared_with and is_deprecated of memories the index does not hold yet) as one insert of
 * all of them would: their postings, then their document frequencies and counts. The migration runs
 * them on the memories that exist before it; a bulk load with the lexical triggers off runs them on
 * what it loaded.
 */
export function indexRowsSql(rows: string): [postings: string, statistics: string] {
  return [insertPostings(rows), accountSql(CHANGED.INSERT.replace('new_rows n', `(${rows}) n`))];
}

/** The index of each term's posting list in impact order, the one the lexical channel reads. */
export const POSTINGS_TERM_INDEX_SQL =
  'create index memory_postings_term on memory_postings (project_id, namespace, term, impact desc, memory_id)';

const CONTENT_CHANGED = `select n.id, n.project_id, n.namespace, n.content from new_rows n join old_rows o using (id)
  where o.content is distinct from n.content or o.namespace is distinct from n.namespace
     or o.project_id is distinct from n.project_id`;

/**
 * The lexical channel's Okapi BM25 index, kept by the database itself at write time:
 * - engram_terms(text): the one analyzer of documents and queries (PostgreSQL's `english` text
 *   search configuration: lowercase, Snowball stemming, English stop words; numbers, codes, paths
 *   and e-mail addresses stay whole tokens; plus question words and the filler of questions put to
 *   a memory), with the term frequency;
 * - memory_postings: one row per memory and term with tf, the memory's length in terms (dl) and
 *   an impact (the BM25 term-frequency factor at a reference length) that orders each term's list;
 * - lexical_df and lexical_docs: per project, namespace and visibility part, the document
 *   frequency of each term and the number and total length of live memories. A part is `global`
 *   (global rows), `*` (every non-global row, for readers who see everything) or `agent:<id>`
 *   (the rows only that agent and whoever it shares with may see: its own and those shared with it),
 *   so the statistics over what a reader may see are a sum of two parts.
 * Statement-level triggers with transition tables keep all of it right for batch inserts,
 * deletes, deprecations and relabels, on PostgreSQL and PGlite alike.
 */
export const bm25Postings: Migration = {
  name: '20261126000100-bm25-postings',
  async up(knex) {
    const stop = LEXICAL_ANALYZER_STOP_WORDS.map((w) => `'${w}'`).join(',');
    await knex.raw(`create function engram_terms(doc text) returns table (term text, tf integer)
      language sql immutable parallel safe as $$
        select lexeme, coalesce(array_length(positions, 1), 1)
          from unnest(to_tsvector('english'::regconfig, doc))
         where lexeme <> all (array[${stop}]::text[]) and length(lexeme) <= 64
      $$`);
    await knex.raw(`create function engram_lexical_parts(scope text, agent_id text, shared_with text[])
      returns text[] language sql immutable parallel safe as $$
        select case when scope = 'global' then array['global']
          else array['*', 'agent:' || agent_id] || coalesce((
            select array_agg(distinct 'agent:' || s) from unnest(shared_with) s
             where scope = 'agent-shared' and s <> agent_id), '{}') end
      $$`);
    await knex.raw(`create table memory_postings (
        memory_id uuid not null references memories (id) on delete cascade,
        project_id text not null,
        namespace text not null,
        term text not null,
        tf integer not null,
        dl integer not null,
        impact real not null,
        primary key (memory_id, term))`);
    await knex.raw(POSTINGS_TERM_INDEX_SQL);
    await knex.raw(`create table lexical_df (
        project_id text not null, namespace text not null, part text not null, term text not null,
        shard smallint not null, df bigint not null,
        primary key (project_id, namespace, part, term, shard))`);
    await knex.raw(`create table lexical_docs (
        project_id text not null, namespace text not null, part text not null, shard smallint not null,
        n bigint not null, total_len bigint not null,
        primary key (project_id, namespace, part, shard))`);
    // Existing memories, as one insert of all of them would record them.
    const all = `select id, project_id, namespace, content, scope, agent_id, shared_with, is_deprecated from memories`;
    for (const sql of indexRowsSql(all)) await knex.raw(sql);
    await knex.raw(`create function engram_lexical_maintain() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          ${insertPostings('select id, project_id, namespace, content from new_rows')};
          ${accountSql(CHANGED.INSERT)};
        elsif tg_op = 'DELETE' then
          ${accountSql(CHANGED.DELETE)};
        else
          delete from memory_postings p using (${CONTENT_CHANGED}) s where p.memory_id = s.id;
          ${insertPostings(CONTENT_CHANGED)};
          ${accountSql(CHANGED.UPDATE)};
        end if;
        return null;
      end $$`);
    await knex.raw(`create trigger memories_lexical_insert after insert on memories
      referencing new table as new_rows for each statement execute function engram_lexical_maintain()`);
    await knex.raw(`create trigger memories_lexical_delete after delete on memories
      referencing old table as old_rows for each statement execute function engram_lexical_maintain()`);
    await knex.raw(`create trigger memories_lexical_update after update on memories
      referencing old table as old_rows new table as new_rows
      for each statement execute function engram_lexical_maintain()`);
  },
  async down(knex) {
    for (const op of ['insert', 'delete', 'update']) {
      await knex.raw(`drop trigger memories_lexical_${op} on memories`);
    }
    await knex.raw('drop function engram_lexical_maintain()');
    await knex.raw('drop table lexical_docs');
    await knex.raw('drop table lexical_df');
    await knex.raw('drop table memory_postings');
    await knex.raw('drop function engram_lexical_parts(text, text, text[])');
    await knex.raw('drop function engram_terms(text)');
  },
};
