/** Invisible format characters used to split words: soft hyphen, zero-width and bidi controls, BOM, ... */
export function isInvisible(cp: number): boolean {
  return (
    cp === 0x00ad ||
    cp === 0x034f ||
    cp === 0x061c ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x17b4 ||
    cp === 0x17b5 ||
    cp === 0x180e ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x206f) ||
    cp === 0x3164 ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp === 0xfeff ||
    cp === 0xffa0
  );
}

const ASCII = 0;
const VISIBLE = 1;
const HIDING = 2;

/** Any UTF-16 unit beyond ASCII. */
const NON_ASCII = /[\u0080-\uffff]/;
/**
 * A character isInvisible accepts, or U+DB40, the high surrogate of the tag characters
 * U+E0000-E007F. Matched one UTF-16 unit at a time (no `u` flag): the combining characters among
 * them stand alone here, as they do in the text they hide words in.
 */
const HIDING_CHARACTER =
  // eslint-disable-next-line no-misleading-character-class
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\udb40]/;

/**
 * What foldForScan has to do with a text: nothing (ASCII), NFKC alone (no invisible or tag
 * character, which are all beyond ASCII), or the full fold (HIDING). Two compiled regular
 * expressions (V8's, each a native scan) rather than a loop over the characters: the same answer in
 * a third of the time, and this runs on every field of every write.
 */
function foldKind(text: string): number {
  if (!NON_ASCII.test(text)) return ASCII;
  return HIDING_CHARACTER.test(text) ? HIDING : VISIBLE;
}

/**
 * Unicode tag characters (U+E0000-E007F) mirror ASCII and render as nothing: text written in them
 * ("ASCII smuggling") is read by a model and seen by no person. The printable ones fold to the
 * ASCII character they mirror; the others (language tag, cancel tag) are dropped.
 */
const TAG_BASE = 0xe0000;
const isTag = (cp: number) => cp >= TAG_BASE && cp <= 0xe007f;
const isPrintableTag = (cp: number) => cp >= 0xe0020 && cp <= 0xe007e;

/**
 * A copy of the text with the usual filter-evasion tricks undone: invisible characters removed,
 * tag characters turned back into the ASCII they hide, and compatibility forms folded (NFKC:
 * fullwidth letters, ligatures, circled letters, ...). ASCII text is returned unchanged without work.
 */
export function foldForScan(text: string): string {
  const kind = foldKind(text);
  if (kind === ASCII) return text;
  // Nearly all non-ASCII text (accents, dashes, quotes) hides nothing: the native NFKC alone gives
  // what the loop below would, without building the string one character at a time (measured on
  // varied 2 KB memories in seven languages: 23 µs for the loop, 1.2 µs for NFKC).
  if (kind === VISIBLE) return text.normalize('NFKC');
  let out = '';
  let inTags = false;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (isTag(cp)) {
      // A run of hidden text is a line of its own: it is read as its own sentence.
      if (!inTags) out += '\n';
      inTags = true;
      if (isPrintableTag(cp)) out += String.fromCharCode(cp - TAG_BASE);
      continue;
    }
    if (inTags) out += '\n';
    inTags = false;
    if (!isInvisible(cp)) out += ch;
  }
  return out.normalize('NFKC');
}
