import { formatCodePoint, scanText } from './text-scan.ts';
import type { ViolationList } from './violation-list.ts';

export interface TextRule {
  /** Maximum length in Unicode code points. */
  readonly maxLength: number;
  /** Allow tab, newline and carriage return (multi-line text); otherwise every control character is refused. */
  readonly allowLineBreaks: boolean;
  /** Absent (undefined or null), empty or white-space-only text is a violation. */
  readonly required?: boolean;
}

/**
 * Checks one free-text field. Absent optional text is fine; a present value must be a string.
 * Descriptions name the rule and a position, never the text itself.
 */
export function checkText(out: ViolationList, field: string, value: unknown, rule: TextRule): void {
  if (value === undefined || value === null) {
    if (rule.required) out.add(field, 'REQUIRED', `${field} is required`);
    return;
  }
  if (typeof value !== 'string') {
    out.add(field, 'INVALID_VALUE', `${field} must be a string`);
    return;
  }
  const scan = scanText(value, rule.maxLength, rule.allowLineBreaks);
  if (rule.required && scan.blank) {
    out.add(field, 'REQUIRED', `${field} must not be empty or white space only`);
  }
  if (scan.tooLong) {
    out.add(
      field,
      'TOO_LONG',
      `${field} must be at most ${rule.maxLength} characters (counted in Unicode code points)`,
    );
  }
  if (scan.control) {
    const allowed = rule.allowLineBreaks ? '; only tab, newline and carriage return are allowed' : '';
    out.add(
      field,
      'CONTROL_CHARACTER',
      `${field} contains the control character ${formatCodePoint(scan.control.codePoint)} at position ` +
        `${scan.control.offset} (code points, from 0)${allowed}`,
    );
  }
  if (scan.loneSurrogateOffset !== undefined) {
    out.add(
      field,
      'INVALID_CHARACTERS',
      `${field} contains an unpaired UTF-16 surrogate at position ${scan.loneSurrogateOffset} ` +
        `(code points, from 0)`,
    );
  }
}
