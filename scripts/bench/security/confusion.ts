import type { Corpus, Item } from './corpora.ts';

export interface Confusion {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
}

export function confusion(items: readonly Item[], detect: (text: string) => boolean): Confusion {
  const c: Confusion = { tp: 0, fn: 0, fp: 0, tn: 0 };
  for (const item of items) {
    const hit = detect(item.text);
    if (item.injection) {
      if (hit) c.tp++;
      else c.fn++;
    } else if (hit) c.fp++;
    else c.tn++;
  }
  return c;
}

export const recall = (c: Confusion) => (c.tp + c.fn === 0 ? NaN : c.tp / (c.tp + c.fn));
export const fpr = (c: Confusion) => (c.fp + c.tn === 0 ? NaN : c.fp / (c.fp + c.tn));
export const precision = (c: Confusion) => (c.tp + c.fp === 0 ? NaN : c.tp / (c.tp + c.fp));

export function bySplit(corpus: Corpus, split: 'dev' | 'holdout' | 'all'): Item[] {
  return corpus.items.filter((i) => split === 'all' || i.split === split);
}

/** Items the detector gets wrong, for development (`--errors`). */
export function errors(
  items: readonly Item[],
  detect: (text: string) => boolean,
): { fn: Item[]; fp: Item[] } {
  const fn: Item[] = [];
  const fp: Item[] = [];
  for (const item of items) {
    const hit = detect(item.text);
    if (item.injection && !hit) fn.push(item);
    if (!item.injection && hit) fp.push(item);
  }
  return { fn, fp };
}
