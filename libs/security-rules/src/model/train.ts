import { mulberry32 } from '../seeded-random.ts';
import { featuresOf, segmentsOf } from './features.ts';

/**
 * Training of the learned injection signal (scripts/train-injection-model.ts calls this on the dev
 * parts of the Engram corpora). Logistic regression over the hashed segment features of
 * features.ts, as multiple-instance learning: a benign text is a bag of benign segments, an attack is
 * a bag in which at least one segment (the planted instruction) is an attack. Deterministic: a
 * seeded order, no parallelism, the same numbers on every run of the same Node version.
 */
export interface TrainingItem {
  readonly text: string;
  readonly injection: boolean;
}

export interface TrainOptions {
  readonly bits: number;
  readonly epochs: number;
  /** L2 penalty per update of a weight. */
  readonly l2: number;
  readonly learningRate: number;
  /** Rounds of choosing each attack's most attack-like segment and training again. */
  readonly milRounds: number;
  readonly seed: number;
}

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = Object.freeze({
  bits: 16,
  epochs: 5,
  l2: 1e-4,
  learningRate: 0.1,
  milRounds: 2,
  seed: 15,
});

export interface TrainedWeights {
  readonly bits: number;
  readonly bias: number;
  readonly weights: Float64Array;
}

interface Example {
  /** Feature buckets (with repeats); each counts 1/sqrt(length). */
  readonly features: readonly number[];
  readonly label: 0 | 1;
  weight: number;
}

/** Lower case, white space collapsed: how a carrier segment is recognised in another text. */
function normalized(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

function margin(w: Float64Array, bias: number, features: readonly number[]): number {
  if (features.length === 0) return bias;
  let s = 0;
  for (const f of features) s += w[f] ?? 0;
  return bias + s / Math.sqrt(features.length);
}

/** SGD with AdaGrad step sizes over the examples, in a seeded order. */
function fit(examples: readonly Example[], opts: TrainOptions): { w: Float64Array; bias: number } {
  const n = 1 << opts.bits;
  const w = new Float64Array(n);
  const g2 = new Float64Array(n).fill(1e-8);
  let bias = 0;
  let gBias = 1e-8;
  const rand = mulberry32(opts.seed);
  const order = examples.map((_, i) => i);
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const idx of order) {
      const ex = examples[idx]!;
      if (ex.features.length === 0) continue;
      const p = 1 / (1 + Math.exp(-margin(w, bias, ex.features)));
      const err = (p - ex.label) * ex.weight;
      const v = 1 / Math.sqrt(ex.features.length);
      for (const f of ex.features) {
        const g = err * v + opts.l2 * w[f]!;
        g2[f]! += g * g;
        w[f]! -= (opts.learningRate * g) / Math.sqrt(g2[f]!);
      }
      gBias += err * err;
      bias -= (opts.learningRate * err) / Math.sqrt(gBias);
    }
  }
  return { w, bias };
}

/**
 * Trains the model. Segments of benign texts are negatives, and so are the segments an attack shares
 * with any other text (the carrier around a planted instruction: corpora reuse carriers, while each
 * planted instruction is written once). An attack's candidate segments are the rest; the first round
 * counts them all, each with an equal share of the attack's weight, then each round keeps only the
 * candidate the previous model scores highest. Both classes carry the same total weight.
 */
export function trainInjectionModel(
  items: readonly TrainingItem[],
  opts: TrainOptions = DEFAULT_TRAIN_OPTIONS,
): TrainedWeights {
  const split = items.map((item) =>
    segmentsOf(item.text).map((seg) => ({ seg, key: normalized(item.text.slice(seg.start, seg.end)) })),
  );
  // In how many texts each segment occurs, and whether a benign text holds it.
  const texts = new Map<string, number>();
  const benign = new Set<string>();
  split.forEach((segs, i) => {
    for (const key of new Set(segs.map((s) => s.key))) texts.set(key, (texts.get(key) ?? 0) + 1);
    if (!items[i]!.injection) for (const s of segs) benign.add(s.key);
  });
  const shared = (key: string) => benign.has(key) || (texts.get(key) ?? 0) > 1;
  const negatives: Example[] = [];
  const seenNegative = new Set<string>();
  const bags: (readonly number[])[][] = [];
  split.forEach((segs, i) => {
    const item = items[i]!;
    const candidates: (readonly number[])[] = [];
    for (const { seg, key } of segs) {
      if (item.injection && !shared(key)) {
        candidates.push(featuresOf(item.text, seg, opts.bits));
        continue;
      }
      if (seenNegative.has(key)) continue;
      seenNegative.add(key);
      negatives.push({ features: featuresOf(item.text, seg, opts.bits), label: 0, weight: 1 });
    }
    if (item.injection) {
      bags.push(
        candidates.length > 0 ? candidates : segs.map(({ seg }) => featuresOf(item.text, seg, opts.bits)),
      );
    }
  });
  const negWeight = negatives.length === 0 ? 1 : bags.length / negatives.length;
  for (const ex of negatives) ex.weight = negWeight;

  let positives: Example[] = bags.flatMap((bag) =>
    bag.map((features) => ({ features, label: 1 as const, weight: 1 / bag.length })),
  );
  let model = fit([...negatives, ...positives], opts);
  for (let round = 0; round < opts.milRounds; round++) {
    positives = bags.map((bag) => {
      let best = bag[0]!;
      let bestMargin = -Infinity;
      for (const features of bag) {
        const m = margin(model.w, model.bias, features);
        if (m > bestMargin) {
          bestMargin = m;
          best = features;
        }
      }
      return { features: best, label: 1 as const, weight: 1 };
    });
    model = fit([...negatives, ...positives], opts);
  }
  return { bits: opts.bits, bias: model.bias, weights: model.w };
}

/** int16 quantization: the scale maps the largest absolute weight to 32767. */
export function quantize(weights: Float64Array): { scale: number; bytes: Buffer } {
  let max = 0;
  for (const v of weights) max = Math.max(max, Math.abs(v));
  const scale = max === 0 ? 1 : max / 32767;
  const bytes = Buffer.alloc(weights.length * 2);
  for (let i = 0; i < weights.length; i++) bytes.writeInt16LE(Math.round(weights[i]! / scale), i * 2);
  return { scale, bytes };
}
