/**
 * The features of the learned injection signal, shared by the training script and the scorer so the
 * two can never drift apart. A text is cut into segments (lines and sentences); each segment becomes a
 * bag of hashed features: lower-cased word unigrams and bigrams (every number one word), the word
 * that opens each clause (a hail, an imperative verb), character 4-grams inside words, and word
 * classes (WORD_CLASSES). Words hash
 * with FNV-1a, each feature mixed with its namespace and reduced to `2^bits` buckets; each feature of a segment weighs 1/sqrt(n) where n
 * is the segment's feature count (the L2 norm of a count vector with few repeats), so a long segment
 * does not score higher for being long.
 */

/** A segment: a span of the text, in UTF-16 offsets. */
export interface Segment {
  readonly start: number;
  readonly end: number;
}

/** Segments shorter than this join the next one (a heading, "Hi Sam,", a bullet mark). */
/** How a redaction token starts: `[REDACTED:<type>]`, what the screen put in place of a finding. */
const REDACTED = '[REDACTED:';

const MIN_SEGMENT = 24;
/** Longer segments are cut (a minified JSON line, a paragraph without stops). */
const MAX_SEGMENT = 400;

const NL = 10;
const CR = 13;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === NL || c === CR;
}

/** Pushes text[start, end) trimmed of white space, cut every MAX_SEGMENT characters. */
function pushSegment(text: string, start: number, end: number, out: Segment[]): void {
  let s = start;
  while (s < end && isSpace(text.charCodeAt(s))) s++;
  let e = end;
  while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
  for (let a = s; a < e; a += MAX_SEGMENT) out.push({ start: a, end: Math.min(e, a + MAX_SEGMENT) });
}

/**
 * Where a redaction token that opens at `i` ends (its `]`), or -1 when none opens there. A token is
 * a space to the features (collect), so it is no visible text here either: a redacted copy is cut
 * into the same segments as the text it came from.
 */
function tokenClose(text: string, i: number): number {
  return text.startsWith(REDACTED, i) ? text.indexOf(']', i) : -1;
}

/**
 * Counts the visible characters (not ASCII white space, outside redaction tokens) of the piece being
 * read, forward from where it stopped last, and only until the piece has MIN_SEGMENT of them: each
 * character is read at most once per text, however many stops a piece holds (50,000 newlines are
 * 50,000 stops of one empty piece).
 */
class VisibleCount {
  private visible = 0;
  private counted = 0;

  constructor(private readonly text: string) {}

  /** Whether text[piece start, end) holds at least MIN_SEGMENT visible characters. */
  reaches(end: number): boolean {
    const text = this.text;
    let i = this.counted;
    while (this.visible < MIN_SEGMENT && i < end) {
      const c = text.charCodeAt(i);
      const close = c === 91 ? tokenClose(text, i) : -1;
      if (close > 0) i = close;
      else if (!isSpace(c)) this.visible++;
      i++;
    }
    this.counted = i;
    return this.visible >= MIN_SEGMENT;
  }

  /** A new piece starts at `start`. */
  restart(start: number): void {
    this.visible = 0;
    this.counted = start;
  }
}

/** The characters that may end a segment or open a redaction token. */
const STOPS = ['\n', '.', '!', '?', '['];

/** The next stop (STOPS) at or after a position, from the native indexOf, one search per stop kind. */
class Stops {
  /** Where the next of each kind of stop is (the text's length when there is none). */
  private readonly next = [-1, -1, -1, -1, -1];

  constructor(private readonly text: string) {}

  /** The first stop at or after `from` (the text's length when none is left). */
  at(from: number): number {
    const { next, text } = this;
    let best = text.length;
    for (let k = 0; k < STOPS.length; k++) {
      if (next[k]! < from) {
        const at = text.indexOf(STOPS[k]!, from);
        next[k] = at < 0 ? text.length : at;
      }
      if (next[k]! < best) best = next[k]!;
    }
    return best;
  }
}

/**
 * Lines and sentences of a text. A sentence ends at `.`, `!` or `?` followed by white space (so
 * "example.com" and "v1.2" stay whole); a line ends at a newline. Short pieces (fewer than
 * MIN_SEGMENT visible characters) join the next one; long ones are cut at MAX_SEGMENT. The stops are
 * found by the native indexOf and the visible characters counted only where a piece could end: on
 * varied 2 KB memories a loop over every character cost more than the rest of the function.
 */
export function segmentsOf(text: string): Segment[] {
  const out: Segment[] = [];
  const n = text.length;
  const stops = new Stops(text);
  const count = new VisibleCount(text);
  let start = 0;
  for (let i = stops.at(0); i < n; i = stops.at(i + 1)) {
    const c = text.charCodeAt(i);
    if (c === 91) {
      const close = tokenClose(text, i);
      if (close > 0) i = close;
      continue;
    }
    if (c !== NL && !(i + 1 < n && isSpace(text.charCodeAt(i + 1)))) continue;
    // Too short to stand alone: the piece joins the next sentence or line.
    if (!count.reaches(i + 1)) continue;
    pushSegment(text, start, i + 1, out);
    start = i + 1;
    count.restart(start);
  }
  if (start < n) pushSegment(text, start, n, out);
  if (out.length === 0 && n > 0) out.push({ start: 0, end: n });
  return out;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Namespaces: the same string as a word, a bigram, a clause opener or a class is another feature. */
const SEED_WORD = 0x9e3779b1;
const SEED_BIGRAM = 0x85ebca77;
const SEED_CLAUSE = 0x7feb352d;
const SEED_CLASS = 0x165667b1;
const SEED_CLASS_CLAUSE = 0xd3a2646c;
const SEED_CLASS_SEQ = 0xfd7046c5;
const SEED_CLASS_PAIR = 0xb55a4f09;
/** Every number is one word: amounts, ids and dates vary, their presence does not. */
const NUMBER_HASH = 0x2545f491;
const P = 0x01000193;
const SEED_GRAM = 0xa54ff53a;

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c > 127;
}

/** A final mix so that nearby hashes land in distant buckets. */
function mix(h: number, seed: number): number {
  let x = Math.imul(h ^ seed, 0x2c1b3c6d);
  x ^= x >>> 15;
  return Math.imul(x, 0x297a2d39);
}

/**
 * Word classes: the parts of a planted request that generalise beyond the words of the training
 * texts. A request to the reader is an act (send, grant, unlock, delete, ...) on something that
 * matters (access, money, a device, records, a setting), often softened or hurried, sometimes
 * naming the reader, often with an outside destination; an author's own note talks about itself
 * (I, we, my). Each class stands for its words: the model learns "an act word opens the clause,
 * then a sensitive object" once, for every verb and object of the lists, in every language listed.
 */
const WORD_CLASSES: readonly (readonly string[])[] = [
  // 1: acts of harm or exfiltration, imperative forms (English, German, French, Spanish, Italian).
  [
    ...'send forward transfer wire pay grant give add invite share upload post publish export copy leak email bcc cc'.split(
      ' ',
    ),
    ...'unlock disarm disable deactivate open reset change update remove delete erase wipe purge cancel approve refund'.split(
      ' ',
    ),
    ...'authorise authorize assign elevate whitelist allow enable expose reveal print dump attach move raise lower set'.split(
      ' ',
    ),
    ...'revoke rotate release issue buy purchase switch turn sync mirror redirect direct reply include'.split(
      ' ',
    ),
    ...'revert withdraw double increase promote register enrol enroll appoint silence fax ship remit deposit'.split(
      ' ',
    ),
    ...'stornieren entfernen sperren ändern annulez modifiez anulen anula modifica cancellate eliminate'.split(
      ' ',
    ),
    ...'senden schicken überweisen löschen entsperren deaktivieren freigeben hinzufügen weiterleiten teilen'.split(
      ' ',
    ),
    ...'envoyez envoie transférez virez supprimez ajoutez désactivez déverrouillez partagez'.split(' '),
    ...'envíe envía envíen transfiera elimina borra añade agrega desactiva comparte reenvía'.split(' '),
    ...'invia inviate trasferisci cancella aggiungi aggiungete disattiva sblocca condividi inoltra'.split(
      ' ',
    ),
    // Dutch and Portuguese imperatives and infinitives of the same acts.
    ...'stuur verstuur stuurt maak betaal geef verwijder verwijderen wis zet schakel uitschakelen deel voeg'.split(
      ' ',
    ),
    ...'envie envia mande mandem transfira transfere pague apague apaguem elimine desative desativa partilhe compartilhe'.split(
      ' ',
    ),
  ],
  // 2: what such acts are done to.
  [
    ...'access admin administrator owner ownership permission permissions rights privileges root password passwords'.split(
      ' ',
    ),
    ...'credentials key keys token tokens recovery account accounts payment payments payee invoice iban wallet funds'.split(
      ' ',
    ),
    ...'card cards bank statements refund deposit balance money door doors lock locks gate garage alarm alarms camera'.split(
      ' ',
    ),
    ...'cameras sensor sensors thermostat heating vehicle sprinkler backup backups database databases archive records'.split(
      ' ',
    ),
    ...'files folder folders drive mailbox inbox emails contacts history messages documents settings setting firewall'.split(
      ' ',
    ),
    ...'2fa mfa vpn dns domain repository repo server servers production secrets ssh certificate webhook logs data'.split(
      ' ',
    ),
    ...'konto zugang passwort daten compte données accès cuenta contraseña datos acceso conto dati accesso'.split(
      ' ',
    ),
    ...'car cars vehicle geofencing tracking location commits branch branches profile profiles claim claims'.split(
      ' ',
    ),
    ...'approvers approver signer signers signatory moderator moderators superuser detectors detector orders'.split(
      ' ',
    ),
    ...'profilo profil perfil rechnungen ticket tickets'.split(' '),
    ...'toegang wachtwoord rekening gegevens beheerder acesso senha senhas conta dados administrador'.split(
      ' ',
    ),
  ],
  // 3: the software reading the data.
  'ai assistant assistants agent agents agenti agenten agentes bot bots llm llms model models chatbot gpt summarizer summariser automation automated ki ia'.split(
    ' ',
  ),
  // 4: softeners and haste.
  'please kindly immediately urgently now asap today quietly silently promptly bitte favor favore'.split(' '),
  // 5: the reader addressed.
  'you your yours yourself'.split(' '),
  // 6: the author speaking of itself.
  'i my me we our us mine ours'.split(' '),
  // 7: modals of obligation.
  'must should shall need needs required instructed expected'.split(' '),
  // 8: money.
  'usd eur gbp euro euros dollars pounds btc bitcoin crypto'.split(' '),
  // 9: the particle that turns an act into switching something off or away ("turn the alarm off").
  'off down out away aus ab weg uit fuera via'.split(' '),
  // 10: quantifiers that widen an act to everything of a kind ("delete all", "every photo").
  'all every entire whole everything everyone alle allen alles tous toutes tout todas todos todo tutti tutte tutto ogni cada chaque jede jeden jedes'.split(
    ' ',
  ),
  // 11: safeguards an attack asks to switch off (the objects of class 2 are what it asks to move or open).
  'passcode passcodes verification filter filters protection limit limits scanning monitoring alert alerts notifications warnings safeguard safeguards encryption antivirus lockout'.split(
    ' ',
  ),
];
/** Class flags of a segment that come from characters: an e-mail address, a URL, a currency sign. */
const CLASS_AT = WORD_CLASSES.length + 1;
const CLASS_URL = CLASS_AT + 1;
const CLASS_CURRENCY = CLASS_AT + 2;

/** FNV-1a of a lower-case word as features() hashes it (apostrophes skipped). */
function wordHashOf(word: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c !== 39 && c !== 0x2019) h = Math.imul(h ^ c, FNV_PRIME);
  }
  return h;
}

/** Open addressing over word hashes: class of a word in a few instructions, no string built. */
const CLASS_TABLE_BITS = 11;
const classKeys = new Int32Array(1 << CLASS_TABLE_BITS);
const classValues = new Uint8Array(1 << CLASS_TABLE_BITS);
WORD_CLASSES.forEach((words, k) => {
  for (const w of words) {
    const h = wordHashOf(w);
    let slot = (Math.imul(h, 0x9e3779b1) >>> (32 - CLASS_TABLE_BITS)) & ((1 << CLASS_TABLE_BITS) - 1);
    while (classValues[slot] !== 0 && classKeys[slot] !== h)
      slot = (slot + 1) & ((1 << CLASS_TABLE_BITS) - 1);
    classKeys[slot] = h;
    classValues[slot] = k + 1;
  }
});

function classOf(h: number): number {
  let slot = Math.imul(h, 0x9e3779b1) >>> (32 - CLASS_TABLE_BITS);
  for (;;) {
    const v = classValues[slot]!;
    if (v === 0) return 0;
    if (classKeys[slot] === h) return v;
    slot = (slot + 1) & ((1 << CLASS_TABLE_BITS) - 1);
  }
}

/**
 * A segment of fewer words has no features (scoreWithModel skips it): a request needs at least an
 * act and an object, and a word or two ("email", "[REDACTED:email]") says nothing. Words here are
 * what a reader calls words: whitespace-separated tokens holding a letter or digit, not the pieces
 * the features split them into. A bare URL (`https://kubernetes.io/blog/`) is one word, though it
 * splits into four feature words (https, kubernetes, io, blog); counted by those, bare URLs passed
 * the floor and scored 0.49-0.87 against the data threshold of 0.69 (round 5).
 */
const MIN_WORDS = 4;

/**
 * What collect needs to know of a character, from one table load for ASCII: WORD (isWordChar, once
 * lower-cased), BREAK (white space: it ends a token; the four non-ASCII ones are word characters
 * too), BRACKET (`[`, which may open a redaction token); and its lower-case form. Per character this
 * replaces a dozen comparisons, most of them on letters.
 */
const WORD = 1;
const BREAK = 2;
const BRACKET = 4;
const CHAR_KIND = new Uint8Array(128);
const CHAR_FOLD = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const lower = c >= 65 && c <= 90 ? c + 32 : c;
  CHAR_FOLD[c] = lower;
  CHAR_KIND[c] =
    (isWordChar(lower) ? WORD : 0) | (c === 32 || (c >= 9 && c <= 13) ? BREAK : 0) | (c === 91 ? BRACKET : 0);
}

/** Feature buckets of the segment being read (reused: no allocation per segment). */
/**
 * A segment of segmentsOf (at most MAX_SEGMENT characters, so at most MAX_SEGMENT / 2 words of at
 * most six features each, at most one character 4-gram per character, and 55 class pairs) never
 * fills it; a longer span keeps its first ones.
 */
const CAPACITY = 5 * MAX_SEGMENT + 64;
const buf = new Int32Array(CAPACITY);
/**
 * Appends bucket `b` after the `used` buckets of `buf` and returns the new count. The count is
 * collect's local, not a module variable: every store to one of those is a memory write, and this
 * runs for every feature of every write.
 */
function push(used: number, b: number): number {
  if (used < CAPACITY) buf[used++] = b;
  return used;
}

/**
 * The features of text[start, end) into `buf`: lower-cased words, word bigrams, clause-opening
 * words, character 4-grams inside words, and word classes (each class present, a class opening a
 * clause, a class after the previous class of the segment, and every pair of classes the segment
 * holds, e-mail addresses, URLs and currency signs included). The 4-grams stand for stems and
 * endings across inflections and languages (löschen / löscht, desactivar / desactive) and across
 * snake_case keys split into words; round 4's validation chose them (see MODEL-CARD.md). Returns
 * the feature count. One function for training and scoring, so the two can never disagree; no
 * closure and no string, as this runs on every byte of every write.
 */
function collect(text: string, start: number, end: number, bits: number): number {
  const shift = 32 - bits;
  let used = 0;
  let prevChar = -1;
  let wordHash = FNV_OFFSET;
  let wordLen = 0;
  // The three characters before this one in the current word (for its character 4-grams).
  let g1 = 0;
  let g2 = 0;
  let g3 = 0;
  let prevWord = 0;
  let havePrevWord = false;
  let digitsOnly = true;
  let prevClass = 0;
  let classes = 0;
  // Whitespace-separated tokens holding a word character (the floor MIN_WORDS counts these).
  let tokens = 0;
  let inToken = false;
  // A word that opens a clause (segment start, or after : , ; ( " [ -): hails and imperatives.
  let clauseStart = true;
  for (let i = start; i <= end; i++) {
    let c = i < end ? text.charCodeAt(i) : 32;
    let kind: number;
    if (c < 128) {
      kind = CHAR_KIND[c]!;
      c = CHAR_FOLD[c]!;
    } else {
      kind = c === 0xa0 || c === 0x2028 || c === 0x2029 || c === 0x3000 ? WORD | BREAK : WORD;
    }
    // A redaction token stands for what the screen removed: a space, not the words of its type.
    if (kind === BRACKET && text.startsWith(REDACTED, i)) {
      const close = text.indexOf(']', i);
      if (close > 0 && close < end) {
        i = close;
        c = 32;
        kind = BREAK;
      }
    }
    if ((kind & BREAK) !== 0) inToken = false;
    if ((kind & WORD) !== 0) {
      if (!inToken) {
        inToken = true;
        tokens++;
      }
      wordHash = Math.imul(wordHash ^ c, FNV_PRIME);
      wordLen++;
      if (wordLen >= 4) {
        used = push(
          used,
          mix(Math.imul(Math.imul(Math.imul(g1, 31) + g2, 31) + g3, 31) + c, SEED_GRAM) >>> shift,
        );
      }
      g1 = g2;
      g2 = g3;
      g3 = c;
      if (c < 48 || c > 57) digitsOnly = false;
    } else if (c !== 39 && c !== 0x2019) {
      const cls = wordLen > 0 && !digitsOnly ? classOf(wordHash) : 0;
      // A lone letter outside the classes ("a", "x", the pieces of s p a c e d text) is not a word:
      // weights learned for single letters from one letter-spaced attack would score any short
      // run of letters, such as what is left of a redacted text, as an instruction.
      if (wordLen === 1 && !digitsOnly && cls === 0) {
        wordHash = FNV_OFFSET;
        wordLen = 0;
        digitsOnly = true;
        g3 = 0;
      } else if (wordLen > 0) {
        if (digitsOnly) wordHash = NUMBER_HASH;
        used = push(used, mix(wordHash, SEED_WORD) >>> shift);
        if (clauseStart) used = push(used, mix(wordHash, SEED_CLAUSE) >>> shift);
        if (havePrevWord) used = push(used, mix(Math.imul(prevWord, P) + wordHash, SEED_BIGRAM) >>> shift);
        if (cls !== 0) {
          used = push(used, mix(cls, SEED_CLASS) >>> shift);
          if (clauseStart) used = push(used, mix(cls, SEED_CLASS_CLAUSE) >>> shift);
          if (prevClass !== 0) used = push(used, mix(prevClass * 16 + cls, SEED_CLASS_SEQ) >>> shift);
          prevClass = cls;
          classes |= 1 << cls;
        }
        prevWord = wordHash;
        havePrevWord = true;
        g1 = 0;
        g2 = 0;
        g3 = 0;
        clauseStart = false;
        digitsOnly = true;
        wordHash = FNV_OFFSET;
        wordLen = 0;
      }
      if (c === 58 || c === 44 || c === 59 || c === 40 || c === 34 || c === 91 || c === 45 || c === 0x2014) {
        clauseStart = true;
      }
      if (
        c === 64 &&
        prevChar >= 0 &&
        isWordChar(prevChar) &&
        i + 1 < end &&
        isWordChar(text.charCodeAt(i + 1) | 32)
      ) {
        classes |= 1 << CLASS_AT;
      } else if (c === 58 && text.charCodeAt(i + 1) === 47 && text.charCodeAt(i + 2) === 47) {
        classes |= 1 << CLASS_URL;
      } else if (c === 36 || c === 163 || c === 0x20ac) classes |= 1 << CLASS_CURRENCY;
    }
    prevChar = c;
  }
  if (tokens < MIN_WORDS) return 0;
  for (let a = 1; a <= CLASS_CURRENCY; a++) {
    if ((classes & (1 << a)) === 0) continue;
    for (let z = a + 1; z <= CLASS_CURRENCY; z++) {
      if ((classes & (1 << z)) !== 0) used = push(used, mix(a * 16 + z, SEED_CLASS_PAIR) >>> shift);
    }
  }
  return used;
}

/** The buckets of a segment's features (with repeats), for training. */
export function featuresOf(text: string, seg: Segment, bits: number): number[] {
  const n = collect(text, seg.start, seg.end, bits);
  return Array.from(buf.subarray(0, n));
}

/** The sum of a segment's feature weights and its feature count, for scoring. */
export function weighFeatures(
  text: string,
  seg: Segment,
  bits: number,
  weights: Float32Array,
): { sum: number; count: number } {
  const count = collect(text, seg.start, seg.end, bits);
  let sum = 0;
  for (let k = 0; k < count; k++) sum += weights[buf[k]!]!;
  return { sum, count };
}
