/**
 * Hashing of features into vector buckets: FNV-1a 32-bit over UTF-16 code units, seeded per feature
 * family (so the unigram "abc" and the trigram "abc" land in different places), finished with the
 * murmur3 fmix32 avalanche so that every bit of the hash depends on every input bit. The bucket comes
 * from one finished hash and the sign (+1/-1) from a second, independently mixed one; signed hashing
 * makes collisions cancel in expectation instead of always adding up.
 */
export const FEATURE_SEED = { unigram: 0x01, bigram: 0x02, trigram: 0x03 } as const;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const CARET = 0x5e; // ^ pads a word's start for trigrams
const DOLLAR = 0x24; // $ pads its end

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function basis(seed: number): number {
  return (FNV_OFFSET ^ Math.imul(seed, 0x9e3779b1)) >>> 0;
}

export function fnv1a32(text: string, seed: number): number {
  let h = basis(seed);
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/**
 * The hash of a word bigram from the unigram hashes of its two words: FNV-1a over the two 32-bit
 * values, in the bigram family. Order matters ("a b" differs from "b a").
 */
export function bigramHash(first: number, second: number): number {
  let h = Math.imul(basis(FEATURE_SEED.bigram) ^ first, FNV_PRIME);
  h = Math.imul(h ^ second, FNV_PRIME);
  return h >>> 0;
}

/** Adds `weight` to the bucket of the feature hashed `h` in `v[0 .. buckets-1]`, with its sign. */
export function addFeature(v: Float64Array, buckets: number, h: number, weight: number): void {
  const bucket = fmix32(h) % buckets;
  const sign = fmix32(h ^ 0x5bd1e995) & 1 ? 1 : -1;
  v[bucket] = (v[bucket] as number) + sign * weight;
}

/**
 * Adds the character trigrams of `^word$` (as many as the word has code units), each with weight
 * `each`. Their hashes are fnv1a32('^word$'.slice(i, i + 3), FEATURE_SEED.trigram), computed
 * without building the substrings.
 */
export function addTrigramFeatures(v: Float64Array, buckets: number, word: string, each: number): void {
  const n = word.length;
  const b = basis(FEATURE_SEED.trigram);
  for (let i = 0; i < n; i++) {
    let h = Math.imul(b ^ (i === 0 ? CARET : word.charCodeAt(i - 1)), FNV_PRIME);
    h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME);
    h = Math.imul(h ^ (i + 1 === n ? DOLLAR : word.charCodeAt(i + 1)), FNV_PRIME);
    addFeature(v, buckets, h >>> 0, each);
  }
}
