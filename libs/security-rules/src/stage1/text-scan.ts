/**
 * One linear pass over a string's UTF-16 code units that answers every stage 1 question about it:
 * its length in Unicode code points, the first control character, the first unpaired surrogate,
 * and whether it is blank. No regular expressions, so no backtracking.
 *
 * Control characters are C0 (U+0000-U+001F), DEL (U+007F) and C1 (U+0080-U+009F). With
 * allowLineBreaks, tab, newline and carriage return (U+0009, U+000A, U+000D) are allowed.
 */
export interface TextScan {
  /** Length in code points; a lone surrogate counts as one. Not computed when tooLong is decided early. */
  readonly codePoints: number;
  readonly tooLong: boolean;
  /** Code point offset (from 0) and value of the first control character. */
  readonly control?: { readonly offset: number; readonly codePoint: number };
  /** Code point offset (from 0) of the first unpaired UTF-16 surrogate. */
  readonly loneSurrogateOffset?: number;
  /** Empty or white space only (the white space of String.prototype.trim). */
  readonly blank: boolean;
}

export function isControlCodePoint(cp: number, allowLineBreaks: boolean): boolean {
  if (cp < 0x20) return !(allowLineBreaks && (cp === 0x09 || cp === 0x0a || cp === 0x0d));
  return cp >= 0x7f && cp <= 0x9f;
}

function isWhiteSpace(cp: number): boolean {
  return (
    (cp >= 0x09 && cp <= 0x0d) ||
    cp === 0x20 ||
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000 ||
    cp === 0xfeff
  );
}

/**
 * Scans `text`. A string of more than 2 * maxCodePoints UTF-16 units cannot fit (a code point takes
 * at most two units), so it is answered tooLong at once without scanning: an oversized input costs
 * nothing, and its other problems are not reported.
 */
export function scanText(text: string, maxCodePoints: number, allowLineBreaks: boolean): TextScan {
  if (text.length > 2 * maxCodePoints) return { codePoints: text.length, tooLong: true, blank: false };
  let codePoints = 0;
  let blank = true;
  let control: TextScan['control'];
  let loneSurrogateOffset: number | undefined;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const unit = text.charCodeAt(i);
    if (unit > 0x20 && unit < 0x7f) {
      // Fast path: printable ASCII other than space (most of any real text).
      blank = false;
      codePoints++;
      continue;
    }
    let cp = unit;
    if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
      if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        cp = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else if (loneSurrogateOffset === undefined) {
        loneSurrogateOffset = codePoints;
      }
    }
    if (control === undefined && isControlCodePoint(cp, allowLineBreaks)) {
      control = { offset: codePoints, codePoint: cp };
    }
    if (blank && !isWhiteSpace(cp)) blank = false;
    codePoints++;
  }
  return {
    codePoints,
    tooLong: codePoints > maxCodePoints,
    blank,
    ...(control ? { control } : {}),
    ...(loneSurrogateOffset !== undefined ? { loneSurrogateOffset } : {}),
  };
}

/** U+0007 style, for descriptions (names the character class, never echoes the text). */
export function formatCodePoint(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}
