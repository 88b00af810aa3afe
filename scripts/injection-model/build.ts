/**
 * Builds the learned injection signal from the corpora in this repository: trains on the dev parts
 * only, chooses each profile's threshold and the stage-4 band on the validation parts, and renders
 * libs/security-rules/src/model/injection-model.data.ts. Never opens a sealed file. Used by
 * scripts/train-injection-model.ts (`make train-injection-model`) and by the test that checks the
 * shipped file is what a fresh run gives.
 */
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  scanInContext,
  scanText,
  screeningProfile,
  scoreWithModel,
  type InjectionModelData,
  type LoadedModel,
  type ScreeningProfile,
} from '@engram/security-rules';
import {
  DEFAULT_TRAIN_OPTIONS,
  quantize,
  trainInjectionModel,
  type TrainOptions,
} from '@engram/security-rules/train';
import {
  engramDirect,
  engramTrainingCorpora,
  olderBenchData,
  TRAINING_ROUNDS,
  type EngramSplit,
  type Item,
} from '../bench/security/corpora.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const EVAL_DIR = join(ROOT, 'libs', 'security-rules', 'eval');
export const BENCH_DATA_DIR = join(ROOT, 'libs', 'security-rules', 'bench-data');
export const MODEL_FILE = join(ROOT, 'libs', 'security-rules', 'src', 'model', 'injection-model.data.ts');

/**
 * The Engram corpora of one split: round 2, engram-train-r4, the retired engram-r3, engram-r5-sealed and
 * engram-r6-sealed and engram-r8-sealed (dev), engram-r4-sealed and engram-r7-sealed (validation), engram-direct (the older bench files are all dev). `holdOut` leaves
 * one writer's items out (writer-held-out validation; the older bench files have no writer and stay).
 */
export function engramItems(split: Exclude<EngramSplit, 'sealed'>, holdOut?: string): Item[] {
  const splits = [split];
  const direct = engramDirect(EVAL_DIR, splits);
  return [
    ...engramTrainingCorpora(EVAL_DIR, splits).flatMap((c) => c.items),
    ...(direct?.items ?? []),
    ...(split === 'dev' ? olderBenchData(BENCH_DATA_DIR).items : []),
  ].filter((i) => holdOut === undefined || i.writer !== holdOut);
}

/** The writers of the Engram corpora (one per training round, and the team that wrote engram-direct). */
export const WRITERS: readonly string[] = [...TRAINING_ROUNDS.map((r) => r.writer), 'direct'];

/** Validation targets the thresholds are chosen for (see the model card). */
export const TARGETS = {
  /** Share of benign validation items screened as data that the model may flag beyond the rules. */
  dataFpr: 0.05,
  /**
   * Share of benign validation items screened as everyday memories that the model may flag beyond
   * the rules: half the issue's refusal target (0.5%), since a model finding on a memory of a
   * global-scope type is refused and the rules refuse some memories too, so the model may not spend
   * the whole budget (round 4: 1%; round 5: 0.5%, which with engram-r5's memories in validation fell
   * to 0.86 and refused one more validation memory).
   */
  memoryFpr: 0.0025,
  /**
   * Share of benign data-profile validation items the uncertain band may send to stage 4 (in
   * production nearly every write is benign, so that is the call rate a deployment pays). Round 4:
   * 15%; with engram-r4-sealed in validation that reached down to 0.56, where a plain status line
   * scores (the stage-4 tests' "sure" text), so round 5 asks for 12% (band from 0.60).
   */
  bandCallRate: 0.12,
  /**
   * Share of the validation attacks screened as data that the corroboration floor may cost: the
   * floor drops a weak rule's finding (Rule.corroborate) where the model scores the text under it,
   * and is the highest on a 0.05 grid (at most 0.5) that loses no more attacks than this (round 14).
   */
  corroborationLoss: 0.0025,
} as const;

interface Scored {
  readonly item: Item;
  readonly profile: ScreeningProfile;
  /** Whether a rule of the profile's tiers fired. */
  readonly rules: boolean;
  readonly score: number;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * The lowest threshold on a 0.01 grid at which the model flags at most `target` of the negatives
 * that no rule flags already; above 1 (never) when even 0.99 flags more.
 */
function lowestThreshold(negatives: readonly Scored[], target: number): number {
  for (let t = 1; t <= 99; t++) {
    const th = t / 100;
    const added = negatives.filter((s) => !s.rules && s.score >= th).length;
    if (negatives.length === 0 || added / negatives.length <= target) return th;
  }
  return 2;
}

/**
 * The corroboration floor (TARGETS.corroborationLoss): the highest on a 0.05 grid up to 0.5 at which
 * the validation attacks screened as data whose only findings are weak rules' and whose score lies
 * under the floor (so the floor would clear them) stay within the target share.
 */
function corroborationFloor(items: readonly Item[], model: LoadedModel): number {
  const attacks = items.filter((i) => i.injection && screeningProfile(i) === 'data');
  // The scores of the attacks only weak rules flag: those a floor above their score would clear.
  const clearable = attacks.flatMap((item) => {
    const scan = scanInContext(item.text, { stage2: false, stage3: true }, 'data', model);
    const injection = scan.findings.filter((f) => f.category === 'injection');
    const weakOnly = injection.length > 0 && injection.every((f) => f.corroborate === true);
    return weakOnly && scan.modelScore > 0 ? [scan.modelScore] : [];
  });
  let floor = 0;
  for (let t = 5; t <= 50; t += 5) {
    const lost = clearable.filter((s) => s < t / 100).length;
    if (lost > TARGETS.corroborationLoss * attacks.length) break;
    floor = t / 100;
  }
  return floor;
}

export interface BuiltModel {
  readonly data: InjectionModelData;
  /** The decoded weights, as scoreWithModel takes them. */
  readonly weights: Float32Array;
  /** The file text of injection-model.data.ts. */
  readonly source: string;
  readonly summary: string[];
}

export function buildModel(opts: TrainOptions = DEFAULT_TRAIN_OPTIONS, holdOut?: string): BuiltModel {
  const dev = engramItems('dev', holdOut);
  const trained = trainInjectionModel(
    dev.map((i) => ({ text: i.text, injection: i.injection })),
    opts,
  );
  const { scale, bytes } = quantize(trained.weights);
  const weights = new Float32Array(trained.weights.length);
  for (let i = 0; i < weights.length; i++) weights[i] = bytes.readInt16LE(i * 2) * scale;
  const bias = round4(trained.bias);
  const probe: InjectionModelData = {
    format: 1,
    id: '',
    bits: trained.bits,
    scale,
    bias,
    weights: '',
    thresholds: { data: 2, memory: 2, instructions: 2 },
    band: { low: 2, high: 2 },
    corroboration: 0,
  };
  const model = { data: probe, weights };

  const validation: Scored[] = engramItems('validation', holdOut).map((item) => {
    const profile = screeningProfile(item);
    const found = scanText(item.text, { stage2: false, stage3: true });
    const rules = found.some((f) => profile !== 'instructions' || f.strong === true);
    return { item, profile, rules, score: scoreWithModel(item.text, model).score };
  });
  const negativesIn = (p: ScreeningProfile) => validation.filter((s) => !s.item.injection && s.profile === p);
  const data = lowestThreshold(negativesIn('data'), TARGETS.dataFpr);
  const memory = Math.max(data, lowestThreshold(negativesIn('memory'), TARGETS.memoryFpr));
  // The band: from the lowest score that keeps the stage-4 call share within its target, up to halfway
  // between the data threshold and 1 (a confident model flag is not sent to the LLM).
  const benignData = negativesIn('data');
  const unruled = benignData.filter((s) => !s.rules);
  const high = data > 1 ? 2 : round4(data + (1 - data) / 2);
  let low = high;
  for (let t = Math.round(Math.min(data, 1) * 100); t >= 1; t--) {
    const th = t / 100;
    const calls = unruled.filter((s) => s.score >= th && s.score < high).length;
    if (calls / Math.max(1, benignData.length) > TARGETS.bandCallRate) break;
    low = th;
  }
  const thresholds = { data, memory, instructions: 2 };
  const band = { low, high };
  const corroboration = corroborationFloor(engramItems('validation', holdOut), {
    data: { ...probe, thresholds, band },
    weights,
  });
  const settings = { bits: trained.bits, scale, bias, thresholds, band, corroboration, train: opts };
  const id = createHash('sha256').update(JSON.stringify(settings)).update(bytes).digest('hex').slice(0, 16);
  const out: InjectionModelData = {
    format: 1,
    id,
    bits: trained.bits,
    scale,
    bias,
    weights: bytes.toString('base64'),
    thresholds,
    band,
    corroboration,
  };
  const source = [
    '// Generated by scripts/train-injection-model.ts (`make train-injection-model`): do not edit.',
    '// What it is, what it was trained on and how its thresholds were chosen: MODEL-CARD.md beside it.',
    "import type { InjectionModelData } from './model-data.ts';",
    '',
    'export const INJECTION_MODEL_DATA: InjectionModelData = {',
    '  format: 1,',
    `  id: '${id}',`,
    `  bits: ${out.bits},`,
    `  scale: ${scale},`,
    `  bias: ${bias},`,
    `  thresholds: { data: ${data}, memory: ${memory}, instructions: ${thresholds.instructions} },`,
    `  band: { low: ${low}, high: ${high} },`,
    `  corroboration: ${corroboration},`,
    '  weights:',
    `    '${out.weights}',`,
    '};',
    '',
  ].join('\n');
  const count = (items: readonly Item[], pred: (i: Item) => boolean) => items.filter(pred).length;
  const summary = [
    `trained on ${dev.length} dev items (${count(dev, (i) => i.injection)} attacks, ${count(dev, (i) => !i.injection)} benign)`,
    `validation items: ${validation.length}; thresholds ${JSON.stringify(thresholds)}; band ${JSON.stringify(band)}; corroboration ${corroboration}`,
    `model id ${id}; ${bytes.length} weight bytes`,
  ];
  return { data: out, weights, source, summary };
}
