import type { StoredMemory } from '@engram/memory-model';
import { reciprocalRankFusion, type RankedId } from '@engram/ranking';
import { addDays, type DateInterval } from './calendar.ts';

/**
 * Where a memory's date is read from, first found wins: `metadata.occurred_at` (the documented key:
 * when what the memory tells happened or was said), then `metadata.session_date` (what conversation
 * importers, the conversational benchmark among them, write), as RFC 3339 or ISO 8601 dates; else
 * the row's created_at.
 */
export const MEMORY_DATE_KEYS = Object.freeze(['occurred_at', 'session_date'] as const);

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:$|[Tt ])/;

/** The date a memory is about (MEMORY_DATE_KEYS), for matching against a question's intervals. */
export function memoryDate(m: Pick<StoredMemory, 'metadata' | 'created_at'>): Date {
  for (const key of MEMORY_DATE_KEYS) {
    const v = m.metadata[key];
    if (typeof v !== 'string' || !ISO_DATE.test(v)) continue;
    const t = Date.parse(v);
    if (Number.isFinite(t)) return new Date(t);
  }
  return m.created_at;
}

/**
 * How dated questions re-rank hybrid candidates, chosen on the tuning part of the conversational
 * benchmark (docs/decisions.md): the candidates dated inside the question's intervals, in their fused
 * order, are one more list of the weighted reciprocal rank fusion, with this weight. slackDays
 * widens each interval after its end: a conversation tells of a day after it happened.
 * stripFromLexical drops the words that dated the question ("last", "May") from the lexical query.
 */
export const TEMPORAL_FUSION = Object.freeze({ weight: 0.5, slackDays: 0, stripFromLexical: false });

export interface TemporalFusionSettings {
  readonly weight: number;
  readonly slackDays: number;
}

/** Whether `at` lies in one of the intervals, each widened by `slackDays` after its end. */
export function inIntervals(at: Date, intervals: readonly DateInterval[], slackDays: number): boolean {
  const t = at.getTime();
  return intervals.some((i) => t >= i.start.getTime() && t < addDays(i.end, slackDays).getTime());
}

/**
 * Weighted reciprocal rank fusion of the channel lists, plus, when the question names intervals and
 * some candidates are dated inside them, the list of those candidates in fused order. Returns the
 * fused order and the weights it used (for normalising the fused score). A question without
 * intervals is fused exactly as without this step. Works on the candidates the channels fetched
 * already: no query of its own.
 */
export function fuseInTime(
  lists: readonly (readonly RankedId[])[],
  fusion: { readonly k: number; readonly weights: readonly number[] },
  intervals: readonly DateInterval[] | undefined,
  dateOf: (id: string) => Date | undefined,
  temporal: TemporalFusionSettings = TEMPORAL_FUSION,
): { fused: { id: string; score: number }[]; weights: readonly number[] } {
  const fused = reciprocalRankFusion(lists, fusion.k, fusion.weights);
  if (intervals === undefined || intervals.length === 0 || temporal.weight <= 0)
    return { fused, weights: fusion.weights };
  const inside = fused
    .filter((f) => {
      const at = dateOf(f.id);
      return at !== undefined && inIntervals(at, intervals, temporal.slackDays);
    })
    .map((f) => f.id);
  if (inside.length === 0) return { fused, weights: fusion.weights };
  const weights = [...fusion.weights, temporal.weight];
  return { fused: reciprocalRankFusion([...lists, inside], fusion.k, weights), weights };
}
