/**
 * BM25 constants of the lexical channel. Memories are short, so a term's frequency inside one is
 * almost always 1: the channel scores presence (tf = 1) and keeps BM25's IDF and length
 * normalisation, which is what makes a rare error code outweigh common words.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** BM25 (Lucene) inverse document frequency: ln(1 + (n - df + 0.5) / (df + 0.5)), always > 0. */
export function bm25Idf(n: number, df: number): number {
  const d = Math.min(Math.max(df, 0), n);
  return Math.log(1 + (n - d + 0.5) / (d + 0.5));
}

/** Length normalisation of a document holding the term once: (k1 + 1) / (1 + k1 (1 - b + b dl / avgdl)). */
export function bm25LengthFactor(dl: number, avgdl: number): number {
  const ratio = avgdl > 0 ? dl / avgdl : 1;
  return (BM25_K1 + 1) / (1 + BM25_K1 * (1 - BM25_B + BM25_B * ratio));
}
