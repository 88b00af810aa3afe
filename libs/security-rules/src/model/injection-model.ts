import { segmentsOf, weighFeatures } from './features.ts';
import { INJECTION_MODEL_DATA } from './injection-model.data.ts';
import type { InjectionModelData } from './model-data.ts';

export type { InjectionModelData } from './model-data.ts';

export interface LoadedModel {
  readonly data: InjectionModelData;
  readonly weights: Float32Array;
}

let loaded: LoadedModel | undefined;

/** Decodes the weights once, on first use (never at import time). */
export function injectionModel(): LoadedModel {
  if (loaded) return loaded;
  const data = INJECTION_MODEL_DATA;
  const raw = Buffer.from(data.weights, 'base64');
  const n = 1 << data.bits;
  if (raw.length !== n * 2) throw new Error(`injection model: ${raw.length} weight bytes, expected ${n * 2}`);
  const weights = new Float32Array(n);
  for (let i = 0; i < n; i++) weights[i] = raw.readInt16LE(i * 2) * data.scale;
  loaded = { data, weights };
  return loaded;
}

/** The highest-scoring segment of a text: its probability and its span. */
export interface ModelScore {
  readonly score: number;
  readonly start: number;
  readonly end: number;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/**
 * The raw margin of one segment (bias + weights / sqrt(feature count)); undefined for a segment
 * without features (under the model's floor of words: nothing to score).
 */
export function segmentMargin(
  weights: Float32Array,
  bias: number,
  bits: number,
  text: string,
  start: number,
  end: number,
): number | undefined {
  const { sum, count } = weighFeatures(text, { start, end }, bits, weights);
  return count === 0 ? undefined : bias + sum / Math.sqrt(count);
}

/**
 * The model's verdict on a text: the probability of its most injection-like segment (a planted
 * instruction is one sentence of a long e-mail; averaging over the e-mail would dilute it).
 * Segments without features are not scored, and a text with none (a bare URL, path or id, a
 * value of fewer than four words) scores 0: the model does not read it.
 */
export function scoreWithModel(text: string, model: LoadedModel = injectionModel()): ModelScore {
  let best: ModelScore = { score: 0, start: 0, end: 0 };
  let bestMargin = -Infinity;
  for (const seg of segmentsOf(text)) {
    const m = segmentMargin(model.weights, model.data.bias, model.data.bits, text, seg.start, seg.end);
    if (m !== undefined && m > bestMargin) {
      bestMargin = m;
      best = { score: 0, start: seg.start, end: seg.end };
    }
  }
  return bestMargin === -Infinity ? best : { ...best, score: sigmoid(bestMargin) };
}
