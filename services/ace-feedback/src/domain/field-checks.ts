import { InvalidArgumentError, type FieldViolation } from '@engram/errors';
import { validateId } from '@engram/security-rules';

/** C0 controls (other than tab, newline, carriage return when allowed), DEL and C1 controls. */
function firstControl(text: string, lineBreaks: boolean): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && !(lineBreaks && (c === 0x09 || c === 0x0a || c === 0x0d))) return i;
    if (c >= 0x7f && c <= 0x9f) return i;
  }
  return -1;
}

/** Collects the field violations of one request; `throwIfAny` answers 400 VALIDATION_FAILED. */
export class FieldChecks {
  private readonly violations: FieldViolation[] = [];

  add(field: string, description: string, reason = 'INVALID_VALUE'): this {
    this.violations.push({ field, description, reason });
    return this;
  }

  /** An identifier ([A-Za-z0-9._:@-], at most max); an empty optional one is skipped. */
  id(field: string, value: string | undefined, max: number, required = false): this {
    if (value === undefined || value === '') {
      if (required) this.add(field, 'is required', 'REQUIRED');
      return this;
    }
    this.violations.push(...validateId(field, value, max));
    return this;
  }

  /** Free text: at most max code points, no control characters (line breaks only when allowed). */
  text(
    field: string,
    value: string | undefined,
    max: number,
    opts: { required?: boolean; lineBreaks?: boolean } = {},
  ): this {
    if (value === undefined || value.trim() === '') {
      if (opts.required) this.add(field, 'is required', 'REQUIRED');
      if (value === undefined || value === '') return this;
    }
    if (value.length > 2 * max || [...value].length > max)
      this.add(field, `at most ${max} characters`, 'TOO_LONG');
    else if (firstControl(value, opts.lineBreaks ?? true) >= 0)
      this.add(field, 'must not contain control characters', 'CONTROL_CHARACTER');
    return this;
  }

  /** A list of free-text entries. */
  list(field: string, values: readonly string[], maxEntries: number, maxLength: number): this {
    if (values.length > maxEntries) return this.add(field, `at most ${maxEntries} entries`, 'TOO_MANY');
    values.forEach((v, i) =>
      this.text(`${field}[${i}]`, v, maxLength, { required: true, lineBreaks: false }),
    );
    return this;
  }

  hasAny(): boolean {
    return this.violations.length > 0;
  }

  throwIfAny(): void {
    if (this.violations.length > 0) {
      throw new InvalidArgumentError('request failed validation', this.violations.slice(0, 20));
    }
  }
}
