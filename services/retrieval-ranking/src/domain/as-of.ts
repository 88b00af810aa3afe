import { parseTimestamp, type FieldViolation } from '@engram/errors';
import type { DateInterval } from './calendar.ts';
import { readTemporal } from './temporal-expressions.ts';
import { TEMPORAL_FUSION } from './temporal-ranking.ts';

/**
 * The request's as_of, the reference time of "yesterday" or "last May" in its query: an RFC 3339
 * timestamp checked against the calendar (a bad one is a violation of `as_of`), absent or empty for
 * the server's clock.
 */
export function parseAsOf(value: string | undefined, out: FieldViolation[]): Date | undefined {
  if (value === undefined || value === '') return undefined;
  return parseTimestamp('as_of', value, out);
}

/**
 * What the search needs from a question's dates: the intervals it names against `asOf`, and the
 * text for the lexical channel (without the words that only dated the question when
 * TEMPORAL_FUSION.stripFromLexical says so). A question without dates comes back unchanged.
 */
export function datedQuestion(
  text: string,
  asOf: Date,
): { lexicalText: string; intervals?: readonly DateInterval[] } {
  const reading = readTemporal(text, asOf);
  if (!reading) return { lexicalText: text };
  return {
    lexicalText: TEMPORAL_FUSION.stripFromLexical ? reading.rest : text,
    intervals: reading.intervals,
  };
}
