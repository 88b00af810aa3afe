import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashEmbedder } from '@engram/embeddings';
import { standInVector } from '@engram/testing';
import { memoryText, queryText } from '../retrieval/corpus.ts';

/**
 * An embedding space a bench measures: the stand-in's sentence-embedding geometry (what the
 * `openai` provider gets from the stand-in server) or the built-in `hash` embedder.
 */
export interface Geometry {
  readonly kind: 'standin' | 'hash';
  readonly dimensions: number;
}

export const geometryName = (g: Geometry): string =>
  g.kind === 'hash' ? `hash ${g.dimensions}` : `stand-in ${g.dimensions}`;

/** The model name the stand-in server maps to these dimensions (EMBEDDING_MODEL of a bench run). */
export const standInModel = (dimensions: number): string =>
  dimensions === 1536 ? 'text-embedding-3-small' : `standin-${dimensions}`;

const CACHE = join(tmpdir(), 'engram-bench-vectors');
const hash = new HashEmbedder({ dimensions: 384 });

/** Vectors of texts, in order: exactly what the stand-in server or the hash embedder answers. */
export async function embedTexts(g: Geometry, texts: readonly string[]): Promise<Float32Array[]> {
  if (g.kind === 'standin') return texts.map((t) => standInVector(t, g.dimensions));
  if (g.dimensions !== 384) throw new Error('the hash embedder is measured at 384 dimensions');
  return (await hash.embed(texts)).map((v) => Float32Array.from(v));
}

/** One text's vector (embedTexts for a single text, synchronously). */
export function embedOne(g: Geometry, text: string): ArrayLike<number> {
  if (g.kind === 'standin') return standInVector(text, g.dimensions);
  return hash.embedText(text);
}

/**
 * Vectors of corpus memories [from, to) (memoryText), cached in the temporary directory in chunks
 * of 10,000 so that a second run (or another bench) does not compute 100,000 of them again.
 */
export async function corpusVectors(g: Geometry, from: number, to: number): Promise<Float32Array[]> {
  mkdirSync(CACHE, { recursive: true });
  const CHUNK = 10_000;
  const out: Float32Array[] = [];
  for (let c = Math.floor(from / CHUNK) * CHUNK; c < to; c += CHUNK) {
    const file = join(CACHE, `${g.kind}-${g.dimensions}-${c}.f32`);
    let chunk: Float32Array;
    if (existsSync(file)) {
      const buf = readFileSync(file);
      chunk = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    } else {
      const vs = await embedTexts(
        g,
        Array.from({ length: CHUNK }, (_, k) => memoryText(c + k)),
      );
      chunk = new Float32Array(CHUNK * g.dimensions);
      vs.forEach((v, k) => chunk.set(v, k * g.dimensions));
      writeFileSync(`${file}.partial`, Buffer.from(chunk.buffer));
      renameSync(`${file}.partial`, file);
    }
    for (let i = Math.max(from, c); i < Math.min(to, c + CHUNK); i++) {
      const k = i - c;
      out.push(chunk.subarray(k * g.dimensions, (k + 1) * g.dimensions));
    }
  }
  return out;
}

/** The bench's query texts over a read set of `size` memories (the same as scripts/bench/retrieval). */
export const benchQueries = (size: number, n: number, seed = 0): string[] =>
  Array.from({ length: n }, (_, k) => queryText(((k + seed) * 7919) % size, k + seed));
