import { EngramError, InvalidArgumentError } from '@engram/errors';

/**
 * SQLSTATE class 22, "data exception": the database refused a value, not the statement. Both drivers
 * report it the same way: pg's DatabaseError and PGlite's error carry the five-character SQLSTATE in
 * `code` (22P02 invalid_text_representation, 22007 invalid_datetime_format, 22008
 * datetime_field_overflow, 22003 numeric_value_out_of_range, 22001 string_data_right_truncation,
 * 22021 character_not_in_repertoire for a NUL byte, 22P05 untranslatable_character...).
 */
const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/;

/**
 * The SQLSTATE of a data exception anywhere in the cause chain of an error that is not already a
 * domain error, else undefined. Such a value came from the request (the services store only what
 * they validated), so it is the client's 400, not a 500: the strict parsers before SQL should
 * have refused it, and this is the backstop when one is missing.
 */
export function dataExceptionOf(err: unknown): string | undefined {
  if (err instanceof EngramError) return undefined;
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur instanceof Error && !seen.has(cur)) {
    seen.add(cur);
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && DATA_EXCEPTION.test(code)) return code;
    cur = cur.cause;
  }
  return undefined;
}

/**
 * The 400 a data exception becomes. The database's message is never used: it quotes the refused
 * value and the statement.
 */
export function dataExceptionError(): InvalidArgumentError {
  return new InvalidArgumentError('a request value is malformed or out of range');
}
