import type { Knex } from 'knex';
import type { Reader } from '@engram/auth';
import { vectorLiteral } from '@engram/embeddings';
import { BM25_B, BM25_K1 } from '@engram/ranking';
import { memoryColumns, memoryFromRow, type MemoryRow } from '../memory-row.ts';
import { whereSearchable, whereVisible } from '../visibility.ts';
import { applyFilters, type MemorySearch } from './filters.ts';
import type { SearchHit } from './vector.ts';

/** At most this many distinct query terms take part (the rest of a very long query is ignored). */
const MAX_TERMS = 24;

/**
 * Top-k pruning: each common query term contributes at most this many candidates (or 4 x limit,
 * when larger), the visible memories at the top of its list in impact order; only candidates are
 * scored.
 */
export const PER_TERM_CANDIDATES = 200;

/**
 * A term held by at most this many of the reader's rows contributes all of them: the rare terms,
 * which weigh most, are never cut, so a memory left out holds only common terms.
 */
export const FULL_LIST_DF = 2_000;

/** The visibility parts whose statistics add up to what the reader may see (migration bm25-postings). */
export function visibilityParts(reader: Reader): string[] {
  return reader.seesAll ? ['global', '*'] : ['global', `agent:${reader.agentId}`];
}

export interface LexicalOptions {
  /** Candidates per query term; Infinity scores every visible memory holding a term (exhaustive). */
  readonly perTerm?: number;
}

/**
 * The lexical channel of hybrid queries: Okapi BM25 over the index the database keeps at write time
 * (memory-store migration bm25-postings). The query goes through the same analyzer as the memories
 * (engram_terms: stemming, stop and question words, numbers and codes whole). One statement:
 * 1. N, the average length and each term's document frequency over the rows the reader may see in
 *    the namespace (the global part plus the reader's own part, or everything for a privileged
 *    reader), so a private memory of another agent never changes the reader's scores;
 *    idf = ln(1 + (N - df + 0.5) / (df + 0.5));
 * 2. candidates: for each term, the first visible, live rows of its posting list in impact order,
 *    all of them for a rare term (top-k pruning: a term held by half a million rows still reads a
 *    few hundred);
 * 3. each candidate scored over all query terms, sum of idf * tf (k1 + 1) / (tf + k1 (1 - b + b dl /
 *    avgdl)), ordered by that score.
 */
export async function lexicalSearch(
  knex: Knex,
  q: MemorySearch,
  limit: number,
  opts: LexicalOptions = {},
): Promise<SearchHit[]> {
  const text = q.text;
  if (text === undefined || text.trim() === '') return [];
  const parts = visibilityParts(q.reader);
  const perTerm = opts.perTerm ?? Math.max(PER_TERM_CANDIDATES, 4 * limit);
  const head = knex('memory_postings as p')
    .join('memories', 'memories.id', 'p.memory_id')
    .where('p.project_id', q.reader.projectId)
    .where('p.namespace', q.namespace)
    .whereRaw('p.term = w.term');
  whereSearchable(head, q.namespace).select('p.memory_id');
  whereVisible(head, q.reader);
  applyFilters(head, q);
  void head.orderBy('p.impact', 'desc');
  const stats = (table: string) =>
    knex(table).where({ project_id: q.reader.projectId, namespace: q.namespace }).whereIn('part', parts);
  const vec = vectorLiteral(q.vector);
  const rows = (await knex
    .with('q', knex.raw('select distinct term from engram_terms(?) limit ?', [text, MAX_TERMS]))
    .with(
      'docs',
      stats('lexical_docs').select(
        knex.raw('coalesce(sum(n), 0)::float8 as n'),
        knex.raw('coalesce(sum(total_len), 0)::float8 / greatest(sum(n), 1) as avgdl'),
      ),
    )
    .with(
      'w',
      knex.raw(
        `select q.term, f.df, ln(1 + (docs.n - f.df + 0.5) / (f.df + 0.5)) as idf
           from q cross join docs cross join lateral (?) f where f.df > 0`,
        [stats('lexical_df').whereRaw('term = q.term').sum('df as df')],
      ),
    )
    .with(
      'cand',
      Number.isFinite(perTerm)
        ? knex.raw(
            'select distinct c.memory_id from w cross join lateral (? limit case when w.df <= ? then w.df else ? end) c',
            [head, FULL_LIST_DF, perTerm],
          )
        : knex.raw('select distinct c.memory_id from w cross join lateral (?) c', [head]),
    )
    .with(
      's',
      knex.raw(
        `select p.memory_id, sum(w.idf * p.tf * ${BM25_K1 + 1} /
                  (p.tf + ${BM25_K1} * (1 - ${BM25_B} + ${BM25_B} * p.dl / greatest(docs.avgdl, 1)))) as lexical_score
           from cand join memory_postings p on p.memory_id = cand.memory_id
           join w on w.term = p.term cross join docs
          group by p.memory_id`,
      ),
    )
    .select([
      ...memoryColumns(),
      knex.raw('1 - (memories.embedding <=> ?::vector) as score', [vec]),
      's.lexical_score',
    ])
    .from('s')
    .join('memories', 'memories.id', 's.memory_id')
    .orderBy([
      { column: 's.lexical_score', order: 'desc' },
      { column: 'memories.id', order: 'asc' },
    ])
    .limit(limit)) as (MemoryRow & { score: number | string; lexical_score: number | string })[];
  return rows.map((r) => ({
    ...memoryFromRow(r),
    score: Number(r.score),
    lexicalScore: Number(r.lexical_score),
  }));
}
