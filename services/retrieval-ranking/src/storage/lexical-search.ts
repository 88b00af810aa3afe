import type { Knex } from 'knex';
import { whereVisible } from '@engram/auth';
import { vectorLiteral } from '@engram/embeddings';
import { MEMORY_COLUMNS, memoryFromRow, type MemoryRow } from '@engram/memories';
import { BM25_B, BM25_K1, bm25Idf } from '@engram/ranking';
import type { ScoredMemory, SearchQuery } from '../domain/search.ts';
import { applyFilters } from './search-filters.ts';

/** At most this many distinct query terms take part (the rest of a very long query is ignored). */
const MAX_TERMS = 24;

/**
 * Document frequencies come from at most this many visible matching rows (a sample on a large store:
 * the share of rows holding a term is what IDF needs).
 */
const STATS_SAMPLE = 5_000;

/** A term held by more than this share of the matching rows is common: it scores, it does not select. */
const COMMON_SHARE = 0.25;

/** `plainto_tsquery('simple', ?)` for one term: never a syntax error, whatever the term holds. */
const TERM = `plainto_tsquery('simple', ?)`;

/**
 * The full-text channel of hybrid queries. Terms are the lexemes of to_tsvector('simple', query)
 * (no stemming, no stop words: E4711, src/db/pool.ts and ERR_CONN_RESET stay whole tokens). Two
 * statements over the rows the reader may see that match any term (GIN index on content_tsv):
 * 1. document frequency of each term and the average length among those rows (at most
 *    STATS_SAMPLE of them);
 * 2. rows holding a selective term (or any term when none is selective), ordered by BM25 with
 *    tf = 1: sum over matched terms of idf(term) times the length factor, where
 *    idf = ln(1 + (n - df + 0.5) / (df + 0.5)) over that visible matching set (n rows).
 * So a rare error code outweighs common words, and statistics never count invisible rows.
 */
export async function lexicalSearch(knex: Knex, q: SearchQuery, limit: number): Promise<ScoredMemory[]> {
  const text = q.text;
  if (text === undefined || text.trim() === '') return [];
  const visible = () => {
    const qb = knex('memories')
      .where('memories.namespace', q.namespace)
      .where('memories.is_deprecated', false)
      .whereNotNull('memories.embedding');
    whereVisible(qb, q.reader);
    applyFilters(qb, q);
    return qb;
  };
  // Statement 1: the query's terms with their document frequency among the visible matching rows.
  type StatsRow = { term: string; df: string | number; n: string | number; avgdl: number | null };
  const stats: StatsRow[] = await knex
    .withMaterialized(
      'm',
      visible()
        // Any term: plainto_tsquery ANDs the lexemes with ' & ' (a lexeme never holds a space), so
        // swapping the operator gives their OR.
        .whereRaw(
          `memories.content_tsv @@ replace(plainto_tsquery('simple', ?)::text, ' & ', ' | ')::tsquery`,
          [text],
        )
        .select('memories.content_tsv')
        .limit(STATS_SAMPLE),
    )
    .with(
      'terms',
      knex.raw(`select lexeme as term from unnest(to_tsvector('simple', ?)) limit ?`, [text, MAX_TERMS]),
    )
    .select(
      'terms.term',
      knex.raw(`(select count(*) from m where m.content_tsv @@ plainto_tsquery('simple', terms.term)) as df`),
      knex.raw('(select count(*) from m) as n'),
      knex.raw('(select avg(length(m.content_tsv))::float8 from m) as avgdl'),
    )
    .from('terms');
  const n = Number(stats[0]?.n ?? 0);
  if (n === 0) return [];
  const avgdl = Number(stats[0]?.avgdl ?? 1) || 1;
  const terms = stats.map((r) => r.term);
  const df = stats.map((r) => Number(r.df));
  const idf = df.map((d) => bm25Idf(n, d));
  // Candidates: rows holding a selective term when the query has one. A row holding only common
  // terms scores near zero anyway (the vector channel still sees it), and skipping those rows keeps
  // the scan small on a large store.
  const selective = terms.filter((_, i) => df[i]! > 0 && df[i]! / n <= COMMON_SHARE);
  const candidates = selective.length > 0 ? selective : terms.filter((_, i) => df[i]! > 0);
  if (candidates.length === 0) return [];

  // Statement 2: the rows ordered by BM25 with those weights.
  const weighted = terms.map(() => `?::float8 * (memories.content_tsv @@ ${TERM})::int`).join(' + ');
  const weightBindings = terms.flatMap((t, i) => [idf[i] ?? 0, t]);
  const lexicalScore = `((${weighted}) * ${BM25_K1 + 1} / (1 + ${BM25_K1} * (1 - ${BM25_B} + ${BM25_B} * length(memories.content_tsv) / ?::float8)))`;
  const vec = vectorLiteral(q.vector);
  const rows = (await visible()
    .whereRaw(`memories.content_tsv @@ (${candidates.map(() => TERM).join(' || ')})`, candidates)
    .select([
      ...MEMORY_COLUMNS.map((c) => `memories.${c}`),
      knex.raw('1 - (embedding <=> ?::vector) as score', [vec]),
      knex.raw(`${lexicalScore} as lexical_score`, [...weightBindings, avgdl]),
    ])
    .orderBy([
      { column: 'lexical_score', order: 'desc' },
      { column: 'memories.id', order: 'asc' },
    ])
    .limit(limit)) as (MemoryRow & { score: number | string })[];
  return rows.map((r) => ({ ...memoryFromRow(r), score: Number(r.score) }));
}
