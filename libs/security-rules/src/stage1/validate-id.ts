import type { FieldViolation } from '@engram/errors';
import { ViolationList } from './violation-list.ts';

/** ASCII letters, digits and . _ : @ - (the id alphabet [A-Za-z0-9._:@-]). */
function isIdCharCode(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || // a-z
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x30 && c <= 0x3a) || // 0-9 and :
    c === 0x2e || // .
    c === 0x5f || // _
    c === 0x40 || // @
    c === 0x2d // -
  );
}

/** Checks an identifier into `out`; see validateId. */
export function checkId(out: ViolationList, field: string, value: unknown, maxLength: number): void {
  if (value === undefined || value === null) {
    out.add(field, 'REQUIRED', `${field} is required`);
    return;
  }
  if (typeof value !== 'string') {
    out.add(field, 'INVALID_VALUE', `${field} must be a string`);
    return;
  }
  if (value.length === 0) {
    out.add(field, 'REQUIRED', `${field} must not be empty`);
    return;
  }
  // Valid ids are ASCII, so UTF-16 units are characters; an id with other characters is refused below.
  if (value.length > maxLength) {
    out.add(field, 'TOO_LONG', `${field} must be at most ${maxLength} characters`);
  }
  const n = value.length;
  for (let i = 0; i < n; i++) {
    if (!isIdCharCode(value.charCodeAt(i))) {
      out.add(
        field,
        'INVALID_CHARACTERS',
        `${field} may contain only ASCII letters, digits and . _ : @ - (first invalid character at ` +
          `position ${i}, UTF-16 units from 0)`,
      );
      return;
    }
  }
}

/**
 * Validates an identifier (agent ids, session, entity, run, memory ids, namespace...): a non-empty
 * string of at most maxLength characters from [A-Za-z0-9._:@-]. undefined, null and '' are
 * REQUIRED violations: for an optional field, call this only when the value is present.
 * Returns [] when valid. Linear time, no regular expressions.
 */
export function validateId(field: string, value: unknown, maxLength: number): FieldViolation[] {
  const out = new ViolationList();
  checkId(out, field, value, maxLength);
  return out.toArray();
}
