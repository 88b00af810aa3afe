/**
 * Writer-held-out validation (`make train-injection-model` with `--cross-writer`): for each writer of
 * the Engram corpora, a model trained on the other writers' dev parts with thresholds chosen on the
 * other writers' validation parts, scored on the held-out writer's whole set (dev and validation).
 * The sealed set the issue is scored on is a new writer's; these figures are the closest measure of
 * that. Rules alone (the rules do not depend on the model, but were written on dev items of some
 * writers), the held-out model alone, and both, per writer.
 */
import { screeningProfile, scoreWithModel } from '@engram/security-rules';
import type { TrainOptions } from '@engram/security-rules/train';
import type { Item } from '../bench/security/corpora.ts';
import { DETECTORS, fired, verdictOf, type Detector } from '../bench/security/evaluate.ts';
import { buildModel, engramItems, WRITERS } from './build.ts';

/** What an item of a held-out writer is: an attack, a hard negative (tool output), another benign item. */
type Kind = 'attacks' | 'hard negatives' | 'memories';
const KINDS: readonly Kind[] = ['attacks', 'hard negatives', 'memories'];
const kindOf = (i: Item): Kind =>
  i.injection ? 'attacks' : i.tags?.file?.startsWith('hard-negatives') ? 'hard negatives' : 'memories';

export interface WriterResult {
  readonly writer: string;
  readonly thresholds: { readonly data: number; readonly memory: number };
  /** Per kind: items, and items fired per detector. */
  readonly counts: Readonly<Record<Kind, { n: number } & Record<Detector, number>>>;
}

export function crossWriter(opts?: TrainOptions): WriterResult[] {
  const all = [...engramItems('dev'), ...engramItems('validation')];
  const results: WriterResult[] = [];
  for (const writer of WRITERS) {
    const held = all.filter((i) => i.writer === writer);
    if (held.length === 0) continue;
    const built = buildModel(opts, writer);
    const model = { data: built.data, weights: built.weights };
    const counts = Object.fromEntries(KINDS.map((k) => [k, { n: 0, rules: 0, model: 0, both: 0 }])) as Record<
      Kind,
      { n: number } & Record<Detector, number>
    >;
    for (const item of held) {
      const v = verdictOf(item);
      const threshold = built.data.thresholds[screeningProfile(item)];
      const verdict = { ...v, model: scoreWithModel(item.text, model).score >= threshold };
      const c = counts[kindOf(item)];
      c.n++;
      for (const d of DETECTORS) if (fired(verdict, d)) c[d]++;
    }
    results.push({ writer, thresholds: built.data.thresholds, counts });
  }
  return results;
}

const pct = (n: number, d: number) => (d === 0 ? '–' : ((100 * n) / d).toFixed(1) + '%');

/** Markdown: per held-out writer, recall on attacks and the flagged share of each benign kind, rules / model / both. */
export function crossWriterReport(opts?: TrainOptions): string[] {
  const lines = [
    '| held-out writer | attacks: recall rules / model / both | hard negatives: FPR rules / model / both | memories and prompts: FPR rules / model / both | thresholds data, memory |',
    '|---|---|---|---|---|',
  ];
  for (const r of crossWriter(opts)) {
    const cell = (k: Kind) => {
      const c = r.counts[k];
      return c.n === 0 ? '–' : `${DETECTORS.map((d) => pct(c[d], c.n)).join(' / ')} (${c.n})`;
    };
    const t = r.thresholds;
    lines.push(
      `| ${r.writer} | ${KINDS.map(cell).join(' | ')} | ${t.data}, ${t.memory > 1 ? 'never' : t.memory} |`,
    );
  }
  return lines;
}
