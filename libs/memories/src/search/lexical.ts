import type { Knex } from 'knex';
import type { Reader } from '@engram/auth';
import { vectorParam } from '@engram/embeddings';
import { BM25_B, BM25_K1, BM25_REFERENCE_LENGTH } from '@engram/ranking';
import { memoryColumns, memoryFromRow, type MemoryRow } from '../memory-row.ts';
import { whereSearchable, whereVisible } from '../visibility.ts';
import { applyFilters, type MemorySearch } from './filters.ts';
import type { SearchHit } from './vector.ts';

/** At most this many distinct query terms take part (the rest of a very long query is ignored). */
const MAX_TERMS = 24;

/**
 * Top-k pruning, first round: each common query term contributes at most this many candidates (or
 * 4 x limit, when larger), the visible memories at the top of its list in impact order; only
 * candidates are scored, and a bound on every other memory's score decides whether the round's top k
 * is exact (lexicalSearchRounds).
 */
export const PER_TERM_CANDIDATES = 200;

/** Each further round reads this many times more of every cut list. */
export const PER_TERM_GROWTH = 4;

/** Pruned rounds before the last, exhaustive one (200, 800, 3,200 and 12,800 per term by default). */
export const PRUNED_ROUNDS = 4;

/**
 * A term held by at most this many of the reader's rows contributes all of them: the rare terms,
 * which weigh most, are never cut, so they add nothing to the bound.
 */
export const FULL_LIST_DF = 2_000;

/**
 * The bound is inflated by this relative margin: impacts are stored as float4 (relative rounding
 * error below 6e-8), scores are summed in float8.
 */
const BOUND_MARGIN = 1e-6;

/** The visibility parts whose statistics add up to what the reader may see (migration bm25-postings). */
export function visibilityParts(reader: Reader): string[] {
  return reader.seesAll ? ['global', '*'] : ['global', `agent:${reader.agentId}`];
}

export interface LexicalOptions {
  /**
   * Candidates per common query term in the first round (default PER_TERM_CANDIDATES or 4 x limit);
   * Infinity scores every visible memory holding a term (exhaustive) in one round.
   */
  readonly perTerm?: number;
  /** Growth of the per-term read between rounds (default PER_TERM_GROWTH). */
  readonly growth?: number;
  /** Pruned rounds before the exhaustive one (default PRUNED_ROUNDS). */
  readonly prunedRounds?: number;
  /** Terms held by at most this many of the reader's rows are read whole (default FULL_LIST_DF). */
  readonly fullListDf?: number;
  /**
   * A budget: after this many rounds the best top k found is returned, proven exact or not
   * (default: no budget, rounds go on until the top k is exact, the last one exhaustive).
   */
  readonly maxRounds?: number;
  /**
   * Bind the query vector in pgvector's binary form (vectorParam), which node-postgres sends as a
   * Buffer; PGlite's client takes the text literal (the default).
   */
  readonly binaryVector?: boolean;
}

/** The hits of lexicalSearch, the number of statements (rounds) it took, and whether they are proven exact. */
export interface LexicalResult {
  readonly hits: SearchHit[];
  readonly rounds: number;
  /** The exhaustive top k (the bound proved it, or a list was read whole); false only under maxRounds. */
  readonly exact: boolean;
}

type LexicalRow = MemoryRow & {
  score: number | string;
  lexical_score: number | string;
  bound: number | string;
};

/**
 * The lexical channel of hybrid queries: Okapi BM25 over the index the database keeps at write time
 * (memory-store migration bm25-postings), read from the head of each term's posting list in impact
 * order. Without maxRounds the rounds go on until a bound proves the top k exhaustive; under
 * maxRounds (the service default: one round) it returns the best answer those rounds found, and
 * lexicalSearchRounds' `exact` says whether that answer is proven exhaustive. The query goes through the same analyzer as the memories
 * (engram_terms: stemming, stop and question words, numbers and codes whole).
 */
export async function lexicalSearch(
  knex: Knex,
  q: MemorySearch,
  limit: number,
  opts: LexicalOptions = {},
): Promise<SearchHit[]> {
  return (await lexicalSearchRounds(knex, q, limit, opts)).hits;
}

/**
 * lexicalSearch, with the number of rounds it took. A round is one statement (lexicalRound) that
 * reads the first n visible rows of every common term's list in impact order, scores each memory
 * read exactly over all query terms, and returns an upper bound on the score of every memory it did
 * not read. If the k-th score reaches the bound, no memory left out can rank in the top k (nor tie
 * with the k-th: the bound carries a margin) and the round's top k is the exhaustive one, ties by id
 * included; otherwise n grows PER_TERM_GROWTH times, and after PRUNED_ROUNDS the last round reads
 * every list whole.
 */
export async function lexicalSearchRounds(
  knex: Knex,
  q: MemorySearch,
  limit: number,
  opts: LexicalOptions = {},
): Promise<LexicalResult> {
  const text = q.text;
  if (text === undefined || text.trim() === '' || limit < 1) return { hits: [], rounds: 0, exact: true };
  let perTerm = opts.perTerm ?? Math.max(PER_TERM_CANDIDATES, 4 * limit);
  const growth = opts.growth ?? PER_TERM_GROWTH;
  const pruned = opts.prunedRounds ?? PRUNED_ROUNDS;
  for (let round = 1; ; round++) {
    const last = round > pruned || !Number.isFinite(perTerm);
    const rows = await lexicalRound(
      knex,
      q,
      text,
      limit,
      last ? null : perTerm,
      opts.fullListDf ?? FULL_LIST_DF,
      opts.binaryVector ?? false,
    );
    const bound = Number(rows[0]?.bound ?? 0);
    const kth = rows[limit - 1];
    const exact = last || bound === 0 || (kth !== undefined && Number(kth.lexical_score) >= bound);
    if (exact || round >= (opts.maxRounds ?? Infinity)) {
      const hits = rows.map((r) => ({
        ...memoryFromRow(r),
        score: Number(r.score),
        lexicalScore: Number(r.lexical_score),
      }));
      return { hits, rounds: round, exact };
    }
    perTerm = Math.ceil(perTerm * growth);
  }
}

/** The BM25 term factor tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)), as SQL. */
function factor(tf: string, dl: string, avgdl: string): string {
  return `${tf} * ${BM25_K1 + 1} / (${tf} + ${BM25_K1} * (1 - ${BM25_B} + ${BM25_B} * ${dl} / ${avgdl}))`;
}

/**
 * The largest BM25 term factor T = tf / (tf + c + u dl / A) of a memory whose stored impact is at
 * most I = tf / (tf + c + u dl / R), as SQL (c = k1 (1 - b), u = k1 b, A the average length of what
 * the reader sees, R = BM25_REFERENCE_LENGTH). With K = 1 / I - 1 = c / tf + u x / R and x = dl / tf:
 * 1 / T = 1 + K + u x (1 / A - 1 / R). When A <= R the factor of x is >= 0, so T is largest for the
 * smallest x: x >= 1 (dl >= tf) and, as tf >= 1 gives c / tf <= c, x >= (K - c) R / u; when A > R it
 * is largest for the largest x, x <= K R / u (c / tf > 0), which gives 1 / T >= 1 + K R / A. Both
 * shrink as I does, so the bound at the last impact read holds for every impact below it; the
 * impact is raised by BOUND_MARGIN first (float4 storage). This is tighter than T <= min(1, I
 * max(1, A / R)) and equal to I at A = R.
 */
function termBound(impact: string, avgdl: string): string {
  const c = BM25_K1 * (1 - BM25_B);
  const u = BM25_K1 * BM25_B;
  const R = BM25_REFERENCE_LENGTH;
  const k = `(1 / least(${impact} * ${1 + BOUND_MARGIN}, 1) - 1)`;
  return `(case when ${avgdl} <= ${R}
      then 1 / (1 + ${k} + ${u} * greatest(1, (${k} - ${c}) * ${R} / ${u}) * (1 / ${avgdl} - 1.0 / ${R}))
      else 1 / (1 + ${k} * ${R} / ${avgdl}) end)`;
}

/**
 * One round, one statement:
 * 1. N, the average length and each term's document frequency over the rows the reader may see in
 *    the namespace (the global part plus the reader's own part, or everything for a privileged
 *    reader), so a private memory of another agent never changes the reader's scores;
 *    idf = ln(1 + (N - df + 0.5) / (df + 0.5));
 * 2. read: for each term, the first visible, live, filtered rows of its posting list in impact
 *    order: perTerm of them, all of them for a rare term (df <= FULL_LIST_DF; df + 1 is asked for,
 *    so a list read whole is told from a cut one), every list whole when perTerm is null;
 * 3. bound: a memory not read holds no term whose list was read whole, and for every cut term an
 *    impact at most the last one read; termBound turns that impact into a bound on the term's BM25
 *    factor at the true average length, b_t = idf (k1 + 1) termBound (with BOUND_MARGIN); the bound
 *    on an unread memory's score is the sum of b_t over cut terms, returned on each row;
 * 4. each memory read gets a partial score from the rows read (idf * tf (k1 + 1) / (tf + k1 (1 - b +
 *    b dl / avgdl)) summed over the terms it was read for) and an upper bound (the partial score plus
 *    b_t of every cut term it was not read for); only those whose upper bound reaches the k-th
 *    partial score can rank in the top k, and they are scored exactly over all query terms (their
 *    postings by primary key);
 * 5. the top k of those by score, ties by id, joined to their memories. The score is summed in
 *    numeric, so it does not depend on the order the plan adds a memory's terms in: two memories
 *    with the same terms, frequencies and length tie, and the tie goes by id in every round.
 */
async function lexicalRound(
  knex: Knex,
  q: MemorySearch,
  text: string,
  limit: number,
  perTerm: number | null,
  fullListDf: number,
  binaryVector: boolean,
): Promise<LexicalRow[]> {
  const parts = visibilityParts(q.reader);
  const head = knex('memory_postings as p')
    .join('memories', 'memories.id', 'p.memory_id')
    .where('p.project_id', q.reader.projectId)
    .where('p.namespace', q.namespace)
    .whereRaw('p.term = w.term');
  whereSearchable(head, q.namespace).select('p.memory_id', 'p.impact', 'p.tf', 'p.dl');
  whereVisible(head, q.reader);
  applyFilters(head, q);
  void head.orderBy([
    { column: 'p.impact', order: 'desc' },
    { column: 'p.memory_id', order: 'asc' },
  ]);
  const stats = (table: string) =>
    knex(table).where({ project_id: q.reader.projectId, namespace: q.namespace }).whereIn('part', parts);
  const vec = vectorParam(q.vector, binaryVector);
  const avgdl = 'greatest(docs.avgdl, 1)';
  return (await knex
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
        `select q.term, f.df, ln(1 + (docs.n - f.df + 0.5) / (f.df + 0.5)) as idf,
                case when f.df <= ? then f.df + 1 else ?::bigint end as lim
           from q cross join docs cross join lateral (?) f where f.df > 0`,
        [fullListDf, perTerm, stats('lexical_df').whereRaw('term = q.term').sum('df as df')],
      ),
    )
    .with(
      'r',
      knex.raw(
        'select w.term, c.memory_id, c.impact, c.tf, c.dl from w cross join lateral (? limit w.lim) c',
        [head],
      ),
    )
    .with(
      'tb',
      knex.raw(
        `select w.term, w.idf, case when cut.term is null then 0
                  else greatest(w.idf, 0) * ${BM25_K1 + 1} * ${termBound('cut.impact', avgdl)} * ${1 + BOUND_MARGIN} end as b
           from w cross join docs left join (
             select r.term, min(r.impact) as impact from r join w on w.term = r.term
              group by r.term, w.lim having count(*) >= w.lim) cut on cut.term = w.term`,
      ),
    )
    .with('bound', knex.raw('select coalesce(sum(b), 0) as bound from tb'))
    .with(
      'part',
      knex.raw(
        `select r.memory_id, sum(tb.idf * ${factor('r.tf', 'r.dl', avgdl)}) as partial, sum(tb.b) as seen
           from r join tb on tb.term = r.term cross join docs group by r.memory_id`,
      ),
    )
    .with(
      'need',
      knex.raw(
        `select part.memory_id from part cross join bound
          where (part.partial + bound.bound - part.seen) * ${1 + 1e-9} >= coalesce(
            (select partial from part order by partial desc limit 1 offset ?), 0)`,
        [limit - 1],
      ),
    )
    .with(
      's',
      knex.raw(
        `select p.memory_id, sum((w.idf * ${factor('p.tf', 'p.dl', avgdl)})::numeric) as lexical_score
           from need join memory_postings p on p.memory_id = need.memory_id
           join w on w.term = p.term cross join docs
          group by p.memory_id
          order by lexical_score desc, p.memory_id limit ?`,
        [limit],
      ),
    )
    .select([
      ...memoryColumns(),
      knex.raw('1 - (memories.embedding <=> ?::vector) as score', [vec]),
      's.lexical_score',
      knex.raw('(select bound from bound) as bound'),
    ])
    .from('s')
    .join('memories', 'memories.id', 's.memory_id')
    .orderBy([
      { column: 's.lexical_score', order: 'desc' },
      { column: 'memories.id', order: 'asc' },
    ])
    .limit(limit)) as LexicalRow[];
}
