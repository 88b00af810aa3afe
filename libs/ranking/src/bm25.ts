/**
 * Okapi BM25 constants of the lexical channel: k1 bounds what repeating a term can add (term
 * frequency saturation), b how much a long memory is discounted against the average length.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** BM25 (Lucene) inverse document frequency: ln(1 + (n - df + 0.5) / (df + 0.5)), always > 0. */
export function bm25Idf(n: number, df: number): number {
  const d = Math.min(Math.max(df, 0), n);
  return Math.log(1 + (n - d + 0.5) / (d + 0.5));
}

/**
 * The length (in terms) at which a posting's impact is computed when it is written: each term's list
 * is kept in order of tf / (tf + k1 (1 - b + b dl / this)), which for a fixed average length is the
 * order of the term's BM25 contribution, so the top of the list is the best candidates.
 */
export const BM25_REFERENCE_LENGTH = 16;

/**
 * Words the analyzer drops on top of the English stop words, as stemmed lexemes: the words questions
 * put to a memory are made of ("what did I tell you about", "do you remember whose") and that say
 * nothing about which memory answers them. Documents and queries go through the same analyzer.
 */
export const LEXICAL_ANALYZER_STOP_WORDS: readonly string[] = Object.freeze([
  'whose',
  'whi',
  'tell',
  'told',
  'rememb',
  'recal',
  'mention',
  'ever',
  'would',
  'could',
  'also',
]);

/** BM25 term-frequency factor with length normalisation: tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)). */
export function bm25TermFactor(tf: number, dl: number, avgdl: number): number {
  const ratio = avgdl > 0 ? dl / avgdl : 1;
  return (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * ratio));
}
