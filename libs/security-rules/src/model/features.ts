/**
 * The features of the learned injection signal, shared by the training script and the scorer so the
 * two can never drift apart. A text is cut into segments (lines and sentences); each segment becomes a
 * bag of hashed features: lower-cased word unigrams and bigrams (every number one word), the word
 * that opens each clause (a hail, an imperative verb), and character 4-grams. Words hash with FNV-1a,
 * n-grams with a polynomial hash, each mixed and reduced to `2^bits` buckets; each feature of a segment weighs 1/sqrt(n) where n
 * is the segment's feature count (the L2 norm of a count vector with few repeats), so a long segment
 * does not score higher for being long.
 */

/** A segment: a span of the text, in UTF-16 offsets. */
export interface Segment {
  readonly start: number;
  readonly end: number;
}

/** Segments shorter than this join the next one (a heading, "Hi Sam,", a bullet mark). */
const MIN_SEGMENT = 24;
/** Longer segments are cut (a minified JSON line, a paragraph without stops). */
const MAX_SEGMENT = 400;

const NL = 10;
const CR = 13;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === NL || c === CR;
}

/**
 * Lines and sentences of a text. A sentence ends at `.`, `!` or `?` followed by white space (so
 * "example.com" and "v1.2" stay whole); a line ends at a newline. Short pieces join the next one;
 * long ones are cut at MAX_SEGMENT.
 */
export function segmentsOf(text: string): Segment[] {
  const out: Segment[] = [];
  const n = text.length;
  let start = 0;
  let visible = 0;
  // No closure over the loop's variables: a captured variable lives in a heap context, and this
  // loop runs over every character of every write.
  for (let i = 0; i <= n; i++) {
    let cut = i === n;
    if (!cut) {
      const c = text.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== NL && c !== CR) visible++;
      // Too short to stand alone: the piece joins the next sentence or line.
      cut =
        visible >= MIN_SEGMENT &&
        (c === NL || ((c === 46 || c === 33 || c === 63) && i + 1 < n && isSpace(text.charCodeAt(i + 1))));
    } else if (start >= n) break;
    if (!cut) continue;
    const end = i === n ? n : i + 1;
    let s = start;
    while (s < end && isSpace(text.charCodeAt(s))) s++;
    let e = end;
    while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
    for (let a = s; a < e; a += MAX_SEGMENT) out.push({ start: a, end: Math.min(e, a + MAX_SEGMENT) });
    start = end;
    visible = 0;
  }
  if (out.length === 0 && n > 0) out.push({ start: 0, end: n });
  return out;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Namespaces: the same string as a word, a bigram, a clause opener or a character n-gram is four features. */
const SEED_WORD = 0x9e3779b1;
const SEED_BIGRAM = 0x85ebca77;
const SEED_CLAUSE = 0x7feb352d;
const SEED_CHAR = 0xc2b2ae3d;
/** Every number is one word: amounts, ids and dates vary, their presence does not. */
const NUMBER_HASH = 0x2545f491;
const P = 0x01000193;
const P2 = Math.imul(P, P);
const P3 = Math.imul(P2, P);

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c > 127;
}

/** A final mix so that nearby hashes land in distant buckets. */
function mix(h: number, seed: number): number {
  let x = Math.imul(h ^ seed, 0x2c1b3c6d);
  x ^= x >>> 15;
  return Math.imul(x, 0x297a2d39);
}

/**
 * The features of text[start, end): words, word bigrams, clause-opening words, and character
 * 4-grams (lower-cased, white space runs as one space). With `weights`, returns the sum of their
 * weights; with `out`, pushes their buckets (training). `count` receives the feature count. One
 * function for both, so training and scoring can never disagree; no closure per feature, as this
 * runs on every byte of every write.
 */
function features(
  text: string,
  start: number,
  end: number,
  bits: number,
  weights: Float32Array | undefined,
  out: number[] | undefined,
): { sum: number; count: number } {
  const shift = 32 - bits;
  let sum = 0;
  let count = 0;
  const score = weights !== undefined;
  let b = 0;
  let c1 = -1;
  let c2 = -1;
  let c3 = -1;
  let prevSpace = true;
  let wordHash = FNV_OFFSET;
  let wordLen = 0;
  let prevWord = 0;
  let havePrevWord = false;
  let digitsOnly = true;
  // A word that opens a clause (segment start, or after : , ; ( " [ -): hails and imperatives.
  let clauseStart = true;
  for (let i = start; i <= end; i++) {
    let c = i < end ? text.charCodeAt(i) : 32;
    if (c >= 65 && c <= 90) c += 32;
    if (isWordChar(c)) {
      wordHash = Math.imul(wordHash ^ c, FNV_PRIME);
      wordLen++;
      if (c < 48 || c > 57) digitsOnly = false;
    } else if (c !== 39 && c !== 0x2019) {
      if (wordLen > 0) {
        if (digitsOnly) wordHash = NUMBER_HASH;
        b = mix(wordHash, SEED_WORD) >>> shift;
        if (score) sum += weights[b]!;
        else out!.push(b);
        count++;
        if (clauseStart) {
          b = mix(wordHash, SEED_CLAUSE) >>> shift;
          if (score) sum += weights[b]!;
          else out!.push(b);
          count++;
        }
        if (havePrevWord) {
          b = mix(Math.imul(prevWord, P) + wordHash, SEED_BIGRAM) >>> shift;
          if (score) sum += weights[b]!;
          else out!.push(b);
          count++;
        }
        prevWord = wordHash;
        havePrevWord = true;
        clauseStart = false;
        digitsOnly = true;
        wordHash = FNV_OFFSET;
        wordLen = 0;
      }
      if (c === 58 || c === 44 || c === 59 || c === 40 || c === 34 || c === 91 || c === 45 || c === 0x2014) {
        clauseStart = true;
      }
    }
    if (i === end) break;
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      if (prevSpace) continue;
      prevSpace = true;
      c = 32;
    } else prevSpace = false;
    if (c1 >= 0) {
      b = mix(Math.imul(c1, P3) + Math.imul(c2, P2) + Math.imul(c3, P) + c, SEED_CHAR) >>> shift;
      if (score) sum += weights[b]!;
      else out!.push(b);
      count++;
    }
    c1 = c2;
    c2 = c3;
    c3 = c;
  }
  return { sum, count };
}

/** The buckets of a segment's features (with repeats), for training. */
export function featuresOf(text: string, seg: Segment, bits: number): number[] {
  const out: number[] = [];
  features(text, seg.start, seg.end, bits, undefined, out);
  return out;
}

/** The sum of a segment's feature weights and its feature count, for scoring. */
export function weighFeatures(
  text: string,
  seg: Segment,
  bits: number,
  weights: Float32Array,
): { sum: number; count: number } {
  return features(text, seg.start, seg.end, bits, weights, undefined);
}
