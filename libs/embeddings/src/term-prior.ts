import { COMMON_WORDS } from './stop-words.ts';
import type { TokenKind } from './tokenize.ts';

/**
 * The static stand-in for IDF of the hash embedder (engram-hash-v1). An embedder sees one text at a
 * time and has no corpus statistics, yet lexical relevance must weigh rare terms above common ones
 * (docs/architecture.md, The read path). So a term's weight is a prior guess of its rarity from its form alone:
 *
 * | term form                                              | weight |
 * |--------------------------------------------------------|--------|
 * | stop word (the, and, of...)                             | dropped; 0.3 when a text has nothing else |
 * | common content word (error, failed, use, task...)       | 0.5    |
 * | letters and digits mixed, 3+ chars (E1234, sha256, ipv6) | 2.5    |
 * | letters and digits mixed, 1-2 chars (v2, h1)            | 1.2    |
 * | compound (ERR_CONN_RESET, src/db/pool.ts, PaymentService, v1.9.0, bob@example.com) | 2.0, 2.5 with digits |
 * | digits only, by length 1 / 2 / 3 / 4+                    | 0.3 / 0.6 / 1.2 / 1.6 |
 * | letters only, by length 1 / 2 / 3 / 4 / 5 / 6-7 / 8-9 / 10+ | 0.2 / 0.4 / 0.7 / 0.9 / 1.0 / 1.15 / 1.3 / 1.45 |
 * | CJK character bigram                                   | 1.0    |
 *
 * Why: (1) stop and common words have near-zero IDF in any English corpus; (2) by Zipf's law of
 * abbreviation frequent words are short, so length is a weak but universal rarity signal (weights
 * grow slowly with it and saturate); (3) tokens that mix digits into words or join pieces with
 * _ . / - : @ are nearly always identifiers (error codes, ticket and version numbers, file paths,
 * hosts) that occur in few memories and are exactly what agents look up verbatim, so they weigh
 * about twice a plain word: with squared weights in the dot product, one shared identifier outweighs
 * three or four shared everyday words; (4) short numbers (1, 2, 10) are everywhere, long ones
 * (ports, codes, years) are not. The weights were set by hand against the ranking tests, not fitted.
 */
export const STOP_WORD_ONLY_WEIGHT = 0.3;
export const COMMON_WORD_WEIGHT = 0.5;

const LETTER_WEIGHT_BY_LENGTH = [0, 0.2, 0.4, 0.7, 0.9, 1.0, 1.15, 1.15, 1.3, 1.3];
const LETTER_WEIGHT_LONG = 1.45;
const DIGIT_WEIGHT_BY_LENGTH = [0, 0.3, 0.6, 1.2];
const DIGIT_WEIGHT_LONG = 1.6;

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Prior weight of a (lowercased, non-stop-word) term. */
export function termPrior(text: string, kind: TokenKind): number {
  if (kind === 'cjk') return 1.0;
  if (COMMON_WORDS.has(text)) return COMMON_WORD_WEIGHT;
  let digits = 0;
  for (let i = 0; i < text.length; i++) if (isDigitCode(text.charCodeAt(i))) digits++;
  // Other Unicode digits (\p{N} that NFKC left alone) count as letters here; rare enough not to matter.
  const mixed = digits > 0 && digits < text.length;
  if (kind === 'compound') return digits > 0 ? 2.5 : 2.0;
  if (mixed) return text.length <= 2 ? 1.2 : 2.5;
  if (digits > 0) return DIGIT_WEIGHT_BY_LENGTH[text.length] ?? DIGIT_WEIGHT_LONG;
  return LETTER_WEIGHT_BY_LENGTH[text.length] ?? LETTER_WEIGHT_LONG;
}
