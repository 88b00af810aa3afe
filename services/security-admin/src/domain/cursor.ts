import {
  decodeJsonCursor,
  encodeCursor as encodeCursorText,
  InvalidArgumentError,
  isCursorTimestamp,
  isUuid,
  refuseCursor,
  type FieldViolation,
} from '@engram/errors';

/** A keyset position: the sort timestamp (exact database text) and the tie-breaking id. */
export interface Position {
  readonly at: string;
  readonly id: string;
}

/** Opaque to clients: base64url of a small JSON array [at, id]. */
export function encodeCursor(p: Position): string {
  return encodeCursorText(JSON.stringify([p.at, p.id]));
}

/**
 * undefined for the first page; a cursor the service did not hand out is a 400. Both parts reach SQL
 * as ?::timestamptz and ?::uuid, so they are checked as strictly as the database would: `at` in the
 * exact form encodeCursor writes and a real calendar date, `id` a canonical UUID.
 */
export function decodeCursor(cursor: string): Position | undefined {
  if (cursor === '') return undefined;
  const violations: FieldViolation[] = [];
  const v = decodeJsonCursor('cursor', cursor, violations);
  if (
    Array.isArray(v) &&
    v.length === 2 &&
    isCursorTimestamp(v[0]) &&
    typeof v[1] === 'string' &&
    isUuid(v[1])
  ) {
    return { at: v[0], id: v[1].toLowerCase() };
  }
  if (violations.length === 0) refuseCursor('cursor', violations);
  throw new InvalidArgumentError('request failed validation', violations);
}
