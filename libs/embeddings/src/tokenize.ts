/**
 * Lexical tokenizer of the hash embedder (engram-hash-v1). Changing anything here changes the
 * embedding space: bump HASH_MODEL in hash-embedder.ts.
 *
 * 1. NFKC (full-width letters, ligatures and compatibility digits fold to their plain forms).
 * 2. Chunks: runs of letters, digits and combining marks (\p{L}\p{N}\p{M}, any script), possibly
 *    joined by . _ - / : @ \ between runs. So `E1234`, `ERR_CONN_RESET`, `src/db/pool.ts`,
 *    `10.0.0.1`, `bob@example.com`, `payments-api` and `v1.9.0` each stay one chunk; a sentence's
 *    final period is not part of its last word. The pattern is backtracking-safe: its character
 *    classes are disjoint, so every position has one way to continue.
 * 3. A chunk made of several pieces (split at joiners and at camelCase boundaries: `PaymentService`,
 *    `HTTPServer`) yields the whole chunk as a compound term plus each piece as a part; a single-piece
 *    chunk is a plain term. Everything is lowercased after splitting.
 * 4. Han, Hiragana and Katakana are written without spaces; their runs yield overlapping character
 *    bigrams (the classic CJK bigram analyzer) instead of one giant "word". Other scripts written
 *    without spaces (Thai, Lao, Khmer, Myanmar) stay whole chunks: only character trigrams match
 *    inside them.
 *
 * Terms form the word sequence (bigrams are built over it); parts only add unigram evidence.
 */
export type TokenKind = 'word' | 'compound' | 'cjk';

export interface Token {
  readonly text: string;
  /** term: part of the word sequence; part: a piece of a compound term. */
  readonly role: 'term' | 'part';
  readonly kind: TokenKind;
}

const CHUNK = /[\p{L}\p{N}\p{M}]+(?:[._\-/:@\\]+[\p{L}\p{N}\p{M}]+)*/gu;
const CJK_CHAR = /[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}]/u;

function isJoiner(c: number): boolean {
  // . _ - / : @ \
  return c === 0x2e || c === 0x5f || c === 0x2d || c === 0x2f || c === 0x3a || c === 0x40 || c === 0x5c;
}

const UPPER = 1;
const LOWER = 2;

/** UPPER, LOWER or 0 (uncased: digits, marks, CJK...) for the UTF-16 unit at i. */
function caseAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0x80) return c >= 0x41 && c <= 0x5a ? UPPER : c >= 0x61 && c <= 0x7a ? LOWER : 0;
  if (Number.isNaN(c)) return 0;
  const ch = s.charAt(i);
  if (ch !== ch.toLowerCase()) return UPPER;
  return ch !== ch.toUpperCase() ? LOWER : 0;
}

/**
 * Pieces of a chunk: split at joiners, then at camelCase boundaries (fooBar, HTTPServer).
 * (No closures in this hot path: tsx's keepNames wraps every closure creation in a costly call.)
 */
function pieces(chunk: string): string[] {
  const out: string[] = [];
  let start = 0;
  let prev = 0; // case of the previous unit inside the current piece
  for (let i = 0; i < chunk.length; i++) {
    if (isJoiner(chunk.charCodeAt(i))) {
      if (i > start) out.push(chunk.slice(start, i));
      start = i + 1;
      prev = 0;
      continue;
    }
    const cur = caseAt(chunk, i);
    if (
      cur === UPPER &&
      i > start &&
      (prev === LOWER || (prev === UPPER && caseAt(chunk, i + 1) === LOWER))
    ) {
      out.push(chunk.slice(start, i));
      start = i;
    }
    prev = cur;
  }
  if (chunk.length > start) out.push(chunk.slice(start));
  return out;
}

function pushChunk(chunk: string, out: Token[]): void {
  const ps = pieces(chunk);
  if (ps.length === 0) return;
  if (ps.length === 1) {
    out.push({ text: (ps[0] as string).toLowerCase(), role: 'term', kind: 'word' });
    return;
  }
  out.push({ text: chunk.toLowerCase(), role: 'term', kind: 'compound' });
  for (const p of ps) out.push({ text: p.toLowerCase(), role: 'part', kind: 'word' });
}

function trimJoiners(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isJoiner(s.charCodeAt(a))) a++;
  while (b > a && isJoiner(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}

function pushCjkRun(run: readonly string[], out: Token[]): void {
  if (run.length === 1) out.push({ text: run[0] as string, role: 'term', kind: 'cjk' });
  for (let i = 0; i + 1 < run.length; i++) {
    out.push({ text: (run[i] as string) + (run[i + 1] as string), role: 'term', kind: 'cjk' });
  }
}

function pushOtherRun(run: string, out: Token[]): void {
  const t = trimJoiners(run);
  if (t.length > 0) pushChunk(t, out);
}

/** A chunk holding CJK characters: CJK runs become character bigrams, the rest chunks as usual. */
function pushMixedChunk(chunk: string, out: Token[]): void {
  let other = '';
  let run: string[] = [];
  for (const ch of chunk) {
    if (CJK_CHAR.test(ch)) {
      pushOtherRun(other, out);
      other = '';
      run.push(ch);
    } else {
      pushCjkRun(run, out);
      run = [];
      other += ch;
    }
  }
  pushCjkRun(run, out);
  pushOtherRun(other, out);
}

/** The tokens of a text, in text order. Linear in the text length. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.normalize('NFKC').matchAll(CHUNK)) {
    const chunk = m[0];
    if (CJK_CHAR.test(chunk)) pushMixedChunk(chunk, out);
    else pushChunk(chunk, out);
  }
  return out;
}
