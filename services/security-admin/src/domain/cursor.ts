import {
  decodeCursor as decodeCursorText,
  encodeCursor as encodeCursorText,
  InvalidArgumentError,
  isUuid,
  parseTimestamp,
  refuseCursor,
  type FieldViolation,
} from '@engram/errors';

/** A keyset position: the sort timestamp (exact database text) and the tie-breaking id. */
export interface Position {
  readonly at: string;
  readonly id: string;
}

/** The `at` the repositories hand out: UTC with microseconds, the precision of timestamptz. */
const DATABASE_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

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
  const text = decodeCursorText('cursor', cursor, violations);
  if (text !== undefined) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      v = undefined;
    }
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      typeof v[0] === 'string' &&
      typeof v[1] === 'string' &&
      DATABASE_TEXT.test(v[0]) &&
      parseTimestamp('cursor', v[0], []) !== undefined &&
      isUuid(v[1])
    ) {
      return { at: v[0], id: v[1].toLowerCase() };
    }
    refuseCursor('cursor', violations);
  }
  throw new InvalidArgumentError('request failed validation', violations);
}
