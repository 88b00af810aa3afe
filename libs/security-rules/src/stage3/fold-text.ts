/** Invisible format characters used to split words: soft hyphen, zero-width and bidi controls, BOM, ... */
function isInvisible(cp: number): boolean {
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

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * A copy of the text with the usual filter-evasion tricks undone: invisible characters removed and
 * compatibility forms folded (NFKC: fullwidth letters, ligatures, circled letters, ...). ASCII text
 * is returned unchanged without work.
 */
export function foldForScan(text: string): string {
  if (isAscii(text)) return text;
  let out = '';
  for (const ch of text) {
    if (!isInvisible(ch.codePointAt(0) ?? 0)) out += ch;
  }
  return out.normalize('NFKC');
}
