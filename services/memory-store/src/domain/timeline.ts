import {
  decodeJsonCursor,
  encodeCursor,
  isCursorTimestamp,
  InvalidArgumentError,
  isUuid,
  parseLimit,
  refuseCursor,
  type FieldViolation,
} from '@engram/errors';
import type { StoredMemory } from './memory.ts';

export const TIMELINE_PAGE_SIZE_DEFAULT = 100;
export const TIMELINE_PAGE_SIZE_MAX = 200;
/**
 * Rounds of refill per page: when verify-on-read drops rows, the page is topped up from the rows
 * after them, at most this many times; then it is returned short, with a cursor, so that a run of
 * tampered rows costs a bounded amount of work per request.
 */
export const TIMELINE_REFILL_ROUNDS = 5;

/**
 * A keyset position in a timeline: the sort key of the last row a page examined. `seq` is the
 * sequence_number as decimal text (null when the row has none; entity timelines always null), `at`
 * the exact created_at (UTC, microseconds: a millisecond Date would skip or repeat rows), `id` the
 * tie-breaker.
 */
export interface TimelinePosition {
  readonly seq: string | null;
  readonly at: string;
  readonly id: string;
}

export interface PositionedMemory {
  readonly memory: StoredMemory;
  readonly position: TimelinePosition;
}

const BIGINT_TEXT = /^-?(0|[1-9]\d{0,18})$/;
const BIGINT_MIN = -(2n ** 63n);
const BIGINT_MAX = 2n ** 63n - 1n;

function isBigintText(v: unknown): v is string {
  if (typeof v !== 'string' || !BIGINT_TEXT.test(v)) return false;
  const n = BigInt(v);
  return n >= BIGINT_MIN && n <= BIGINT_MAX;
}

/** Opaque to clients: base64url of a small JSON array [seq, at, id]. */
export function encodeTimelineCursor(p: TimelinePosition): string {
  return encodeCursor(JSON.stringify([p.seq, p.at, p.id]));
}

/**
 * The position inside a cursor this service handed out, checked as strictly as the database would
 * check it (each part reaches SQL as ?::bigint, ?::timestamptz, ?::uuid); anything else is a 400
 * naming `cursor`. undefined for the first page (an empty cursor).
 */
function decodeTimelineCursor(cursor: string, out: FieldViolation[]): TimelinePosition | undefined {
  if (cursor === '') return undefined;
  const before = out.length;
  const v = decodeJsonCursor('cursor', cursor, out);
  if (out.length > before) return undefined;
  if (
    Array.isArray(v) &&
    v.length === 3 &&
    (v[0] === null || isBigintText(v[0])) &&
    isCursorTimestamp(v[1]) &&
    typeof v[2] === 'string' &&
    isUuid(v[2])
  ) {
    return { seq: v[0] as string | null, at: v[1], id: v[2].toLowerCase() };
  }
  refuseCursor('cursor', out);
  return undefined;
}

/** page_size and cursor of a timeline request, validated together with the caller's violations. */
export function timelinePaging(
  req: { page_size?: number | undefined; cursor: string },
  violations: FieldViolation[],
): { pageSize: number; after: TimelinePosition | undefined } {
  const pageSize = parseLimit(
    'page_size',
    req.page_size,
    { min: 1, max: TIMELINE_PAGE_SIZE_MAX, fallback: TIMELINE_PAGE_SIZE_DEFAULT },
    violations,
  );
  const after = decodeTimelineCursor(req.cursor, violations);
  if (violations.length > 0) throw new InvalidArgumentError('request failed validation', violations);
  return { pageSize, after };
}

/**
 * One page of a timeline, verified on read. Rows come from `fetch` in timeline order after a
 * position; `screen` drops (or flags) rows whose signature fails. Rows dropped by verification are
 * replaced from the rows after them, so a full page has pageSize memories. The cursor is the position
 * of the last row examined (kept or dropped), so no row is read twice and none is skipped; it is
 * empty only when no row follows. One row more than needed is fetched to know whether one follows.
 */
export async function timelinePage<M extends StoredMemory>(
  fetch: (after: TimelinePosition | undefined, limit: number) => Promise<PositionedMemory[]>,
  screen: (rows: StoredMemory[]) => Promise<M[]>,
  after: TimelinePosition | undefined,
  pageSize: number,
): Promise<{ memories: M[]; nextCursor: string }> {
  const memories: M[] = [];
  let position = after;
  for (let round = 0; round < TIMELINE_REFILL_ROUNDS; round++) {
    const need = pageSize - memories.length;
    const rows = await fetch(position, need + 1);
    const examined = rows.slice(0, need);
    memories.push(...(await screen(examined.map((r) => r.memory))));
    position = examined[examined.length - 1]?.position ?? position;
    if (rows.length <= need) return { memories, nextCursor: '' };
    if (memories.length >= pageSize) break;
  }
  return { memories, nextCursor: position ? encodeTimelineCursor(position) : '' };
}
