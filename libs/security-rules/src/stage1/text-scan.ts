/**
 * One linear pass over a string's UTF-16 code units that answers every stage 1 question about it:
 * its length in Unicode code points, the first control character, the first unpaired surrogate,
 * and whether it is blank. The only regular expressions are single character classes (one linear
 * native scan each, nothing to backtrack).
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
 * A character the fast path of scanText cannot answer for: a control character or a surrogate.
 * Finding control characters is what these are for.
 */
// eslint-disable-next-line no-control-regex
const NEEDS_LOOP = /[\u0000-\u001f\u007f-\u009f\ud800-\udfff]/;
/** The same with tab, newline and carriage return allowed. */
// eslint-disable-next-line no-control-regex
const NEEDS_LOOP_MULTILINE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ud800-\udfff]/;
/**
 * A character that is not white space in the sense of isWhiteSpace (which is JavaScript's \s, the
 * white space of String.prototype.trim).
 */
const VISIBLE = /\S/;

/**
 * Scans `text`. A string of more than 2 * maxCodePoints UTF-16 units cannot fit (a code point takes
 * at most two units), so it is answered tooLong at once without scanning: an oversized input costs
 * nothing, and its other problems are not reported.
 */
export function scanText(text: string, maxCodePoints: number, allowLineBreaks: boolean): TextScan {
  if (text.length > 2 * maxCodePoints) return { codePoints: text.length, tooLong: true, blank: false };
  // Nearly every text has no control character and no surrogate: then each UTF-16 unit is one code
  // point, and V8's compiled regular expressions answer the rest in about a third of the time of
  // the loop below (which runs only for the texts that hold one of those).
  if (!(allowLineBreaks ? NEEDS_LOOP_MULTILINE : NEEDS_LOOP).test(text)) {
    return { codePoints: text.length, tooLong: text.length > maxCodePoints, blank: !VISIBLE.test(text) };
  }
  return scanUnits(text, maxCodePoints, allowLineBreaks);
}

/** scanText's answer from one loop over the UTF-16 units (exported for the test of the fast path). */
export function scanUnits(text: string, maxCodePoints: number, allowLineBreaks: boolean): TextScan {
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
