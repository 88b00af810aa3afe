import type { FieldViolation } from './domain-errors.ts';

/**
 * Strict parsers of the ids, timestamps, cursors and limits that requests carry in their path and
 * query. Every value that reaches SQL as a uuid, a timestamptz or an integer goes through one of
 * these first, so a value the database would refuse (a cast error, SQLSTATE class 22) is a 400 naming
 * the field instead of a 500. Each parser appends an INVALID_VALUE violation to `out` and returns
 * undefined when the value is refused; the caller throws InvalidArgumentError once with all of them.
 */

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Canonical UUID text, 8-4-4-4-12 hexadecimal digits of any version (memory ids are v7, keys v4). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The UUID in lower case, or undefined (and a violation of `field`). */
export function parseUuid(field: string, value: string, out: FieldViolation[]): string | undefined {
  if (isUuid(value)) return value.toLowerCase();
  out.push({ field, description: 'must be a UUID (8-4-4-4-12 hexadecimal digits)', reason: 'INVALID_VALUE' });
  return undefined;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** The earliest and latest instants accepted: years 0001 to 9999, which PostgreSQL and JS both hold. */
const EARLIEST = new Date(0).setUTCFullYear(1, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * An RFC 3339 timestamp (`2024-02-29T12:00:00Z`, `...T12:00:00.123456+02:00`) checked against the
 * calendar: `new Date()` rolls 2024-02-30 over to March 1 and PostgreSQL refuses it, so both are
 * refused here. Years 0001 to 9999 (after applying the offset too), no leap seconds. Sub-millisecond
 * digits are accepted and dropped by the returned Date.
 */
export function parseTimestamp(field: string, value: string, out: FieldViolation[]): Date | undefined {
  const m = RFC3339.exec(value);
  const refuse = () => {
    out.push({
      field,
      description: 'must be an RFC 3339 timestamp of a real date, e.g. 2024-02-29T12:00:00Z',
      reason: 'INVALID_VALUE',
    });
    return undefined;
  };
  if (!m) return refuse();
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  const sign = m[8] === '-' ? -1 : 1;
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  if (
    year < 1 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    offsetHours > 23 ||
    offsetMinutes > 59
  )
    return refuse();
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day); // Date.UTC would read years below 100 as 19xx
  local.setUTCHours(hour, minute, second, fraction);
  const ms = local.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  if (ms < EARLIEST || ms > LATEST) return refuse();
  return new Date(ms);
}

/**
 * An integer limit (page size, top_k) in [min, max]; `fallback` when absent. A refused value still
 * returns the fallback so that the caller can go on collecting violations.
 */
export function parseLimit(
  field: string,
  value: number | undefined,
  range: { readonly min: number; readonly max: number; readonly fallback: number },
  out: FieldViolation[],
): number {
  if (value === undefined) return range.fallback;
  if (Number.isInteger(value) && value >= range.min && value <= range.max) return value;
  out.push({
    field,
    description: `must be an integer from ${range.min} to ${range.max}`,
    reason: 'INVALID_VALUE',
  });
  return range.fallback;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** An opaque cursor: the base64url (unpadded) of a UTF-8 text. */
export function encodeCursor(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/**
 * The text inside an opaque cursor, or undefined (and a violation of `field`) unless it is exactly
 * what encodeCursor produces: unpadded base64url that re-encodes to itself, of valid UTF-8. What the
 * text says is for the caller to check (a key id, a [timestamp, id] pair...).
 */
export function decodeCursor(field: string, cursor: string, out: FieldViolation[]): string | undefined {
  if (cursor.length <= 4096 && BASE64URL.test(cursor)) {
    const bytes = Buffer.from(cursor, 'base64url');
    if (bytes.toString('base64url') === cursor) {
      try {
        return utf8.decode(bytes);
      } catch {
        // not UTF-8: refused below
      }
    }
  }
  refuseCursor(field, out);
  return undefined;
}

/**
 * The JSON value inside an opaque cursor (decodeCursor's text, parsed), or undefined with a violation
 * of `field` when it is not a cursor or not JSON. Its shape is for the caller to check.
 */
export function decodeJsonCursor(field: string, cursor: string, out: FieldViolation[]): unknown {
  const text = decodeCursor(field, cursor, out);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    refuseCursor(field, out);
    return undefined;
  }
}

/** A timestamp as PostgreSQL's text of a timestamptz in UTC with microseconds, written into cursors. */
const CURSOR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Whether a cursor part is such a timestamp on a real calendar date (it reaches SQL as ?::timestamptz). */
export function isCursorTimestamp(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    CURSOR_TIMESTAMP.test(value) &&
    parseTimestamp('cursor', value, []) !== undefined
  );
}

/** The violation of a cursor this service did not hand out. */
export function refuseCursor(field: string, out: FieldViolation[]): void {
  out.push({ field, description: 'is not a cursor this service returned', reason: 'INVALID_VALUE' });
}
