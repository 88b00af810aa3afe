/**
 * The built-in lexical embedder (provider 'hash', model engram-hash-v1): offline, deterministic,
 * no model files. A text becomes a bag of weighted lexical features hashed into a fixed number of
 * dimensions, so the cosine of two vectors measures weighted term overlap (a lexical retriever, not
 * a semantic one: "car" and "automobile" do not match).
 *
 * Features of a text (tokenize.ts splits it):
 * - unigrams: every term, and every piece of a compound term at half an occurrence
 *   (`ERR_CONN_RESET` counts as itself plus half of each of err, conn, reset), plain English plurals
 *   folded by minimal stemming (minimal-stem.ts: payments -> payment), weighted by a static
 *   rarity prior (term-prior.ts, the stand-in for IDF, which has no corpus to come from here)
 *   times sublinear term frequency 1 + ln(tf). The prior in one line: stop words dropped, common
 *   words 0.5, plain words 0.2 to 1.45 growing with length (short words are frequent words),
 *   numbers 0.3 to 1.6 by length, identifiers (letters mixed with digits, or pieces joined by
 *   _ . / - : @ or camelCase) 2.0 to 2.5, so one shared E1234 outweighs several shared everyday words;
 * - word bigrams over the term sequence after stop-word removal, weight
 *   0.5 * sqrt(prior(a) * prior(b)) * (1 + ln tf): word order and phrases count a little;
 * - character trigrams of each plain word of 3+ characters, padded with ^ and $ (`^pa pay ... ts$`),
 *   sharing 0.5 of the word's weight (each trigram: 0.5 * w / sqrt(number of trigrams)), so that
 *   deploying/deployed or a typo still overlap. CJK bigrams and compounds get none (their pieces do).
 * Stop words are dropped; a text made only of stop words keeps them at weight 0.3 rather than
 * becoming empty. Features are hashed with signed feature hashing (feature-hash.ts) into buckets
 * 0 .. dimensions-2, then the vector is L2-normalised.
 *
 * The last dimension is reserved: no feature ever hashes into it. A text with no features at all
 * (empty, white space, punctuation only) embeds to the unit vector on that dimension rather than a
 * zero vector, whose cosine is undefined (NaN). Such a vector has similarity 1 with another
 * featureless text and 0 with every other text.
 *
 * Changing any rule, list or constant here or in tokenize.ts, term-prior.ts, stop-words.ts,
 * minimal-stem.ts or feature-hash.ts changes the embedding space: bump HASH_MODEL so a store refuses
 * the mix (a test pins a digest of one vector to catch accidental changes).
 */
import type { Embedder, EmbeddingSpace } from './embedder.ts';
import { EmbeddingError } from './embedding-error.ts';
import { addFeature, addTrigramFeatures, bigramHash, FEATURE_SEED, fnv1a32 } from './feature-hash.ts';
import { l2NormalizeInPlace } from './l2-normalize.ts';
import { minimalStem } from './minimal-stem.ts';
import { STOP_WORDS } from './stop-words.ts';
import { STOP_WORD_ONLY_WEIGHT, termPrior } from './term-prior.ts';
import { tokenize, type TokenKind } from './tokenize.ts';

export const HASH_MODEL = 'engram-hash-v1';
export const DEFAULT_HASH_DIMENSIONS = 384;

const PART_OCCURRENCE = 0.5;
const BIGRAM_SHARE = 0.5;
const TRIGRAM_SHARE = 0.5;
const MAX_DIMENSIONS = 65_536;

interface Term {
  count: number;
  readonly kind: TokenKind;
  readonly prior: number;
  /** Unigram feature hash. */
  readonly hash: number;
}

function sublinearTf(count: number): number {
  return count <= 1 ? count : 1 + Math.log(count);
}

export interface HashEmbedderOptions {
  /** Vector size, 2 to 65536 (one dimension is reserved for featureless text). Default 384. */
  readonly dimensions?: number;
}

export class HashEmbedder implements Embedder {
  readonly space: EmbeddingSpace;

  constructor(options: HashEmbedderOptions = {}) {
    const dimensions = options.dimensions ?? DEFAULT_HASH_DIMENSIONS;
    if (!Number.isInteger(dimensions) || dimensions < 2 || dimensions > MAX_DIMENSIONS) {
      throw new EmbeddingError(
        `hash embedder dimensions must be an integer from 2 to ${MAX_DIMENSIONS}`,
        'CONFIGURATION',
      );
    }
    this.space = Object.freeze({ provider: 'hash', model: HASH_MODEL, dimensions });
  }

  embed(texts: readonly string[]): Promise<number[][]> {
    try {
      return Promise.resolve(texts.map((t) => this.embedText(t)));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** The vector of one text, synchronously (the embedder does no I/O). */
  embedText(text: string): number[] {
    const dims = this.space.dimensions;
    const buckets = dims - 1; // the last dimension is reserved
    const terms = new Map<string, Term>();
    const sequence: Term[] = [];
    const stopTerms: string[] = [];

    for (const token of tokenize(text)) {
      if (token.kind !== 'cjk' && STOP_WORDS.has(token.text)) {
        if (token.role === 'term') stopTerms.push(token.text);
        continue;
      }
      const share = token.role === 'part' ? PART_OCCURRENCE : 1;
      const key = token.kind === 'word' ? minimalStem(token.text) : token.text;
      let term = terms.get(key);
      if (term === undefined) {
        // The prior looks at the word as written (a common word stays common once stemmed).
        const prior = termPrior(token.text, token.kind);
        term = { count: 0, kind: token.kind, prior, hash: fnv1a32(key, FEATURE_SEED.unigram) };
        terms.set(key, term);
      }
      term.count += share;
      if (token.role === 'term') sequence.push(term);
    }
    if (terms.size === 0) {
      for (const word of stopTerms) {
        let term = terms.get(word);
        if (term === undefined) {
          const hash = fnv1a32(word, FEATURE_SEED.unigram);
          term = { count: 0, kind: 'word', prior: STOP_WORD_ONLY_WEIGHT, hash };
          terms.set(word, term);
        }
        term.count += 1;
        sequence.push(term);
      }
    }

    const v = new Float64Array(dims);
    for (const [word, term] of terms) {
      const w = term.prior * sublinearTf(term.count);
      addFeature(v, buckets, term.hash, w);
      if (term.kind === 'word' && word.length >= 3) {
        addTrigramFeatures(v, buckets, word, (w * TRIGRAM_SHARE) / Math.sqrt(word.length));
      }
    }

    // Keyed by hash: two bigrams with the same 32-bit hash would share a bucket and sign anyway.
    const bigrams = new Map<number, { count: number; weight: number }>();
    for (let i = 1; i < sequence.length; i++) {
      const a = sequence[i - 1] as Term;
      const b = sequence[i] as Term;
      const h = bigramHash(a.hash, b.hash);
      const seen = bigrams.get(h);
      if (seen) seen.count++;
      else bigrams.set(h, { count: 1, weight: BIGRAM_SHARE * Math.sqrt(a.prior * b.prior) });
    }
    for (const [h, g] of bigrams) addFeature(v, buckets, h, g.weight * sublinearTf(g.count));

    if (l2NormalizeInPlace(v) === undefined) {
      v.fill(0);
      v[dims - 1] = 1;
    }
    return Array.from(v);
  }
}
