import RE2 from 're2';
import type { DetectionCategory, Finding } from './detection.ts';

/**
 * One detection rule: an RE2 pattern (linear time, no backtracking) and an optional check of each
 * match that a regular expression cannot express (Luhn, placeholders, boundaries).
 */
export interface Rule {
  readonly category: DetectionCategory;
  readonly type: string;
  /** RE2 syntax. Matched case-insensitively unless caseSensitive. */
  readonly pattern: string;
  readonly caseSensitive?: boolean;
  /**
   * Injection rules: `strong` when the rule describes an attack whoever writes it (it applies to an
   * internal agent's own procedures too); `contextual` (the default) when the same words can be an
   * ordinary instruction in such a memory. See policy/screening-profile.ts.
   */
  readonly tier?: 'strong' | 'contextual';
  /**
   * A rule of the data profile (stage3/data-rules.ts): its findings carry `data`, so one pass with
   * every rule serves content screened as data (policy/scan-text.ts).
   */
  readonly data?: boolean;
  /**
   * A rule whose DFA is large (long alternations joined by unbounded gaps): the scanner keeps it out
   * of the shared RE2.Sets and runs its own search on every text, because in a set with others the
   * product of their states overflows RE2's DFA cache on varied text, which is then rebuilt mid-scan
   * (measured on 300 different 2 KB memories: the data rules in one set 400 µs median, this rule
   * alone 14.6 µs and the others together 8.9 µs).
   */
  readonly ownSet?: boolean;
  /**
   * A data rule that matches the everyday imperatives of people as well as planted requests (an act
   * on something sensitive): its findings carry `corroborate`, and screening as data drops them when
   * the learned signal read the text and scored it under the model's corroboration floor.
   */
  readonly corroborate?: boolean;
  /**
   * Accepts or refuses one match; may narrow it to a sub-span (e.g. the value of an assignment).
   * Returns undefined to refuse.
   */
  readonly accept?: (text: string, start: number, end: number) => { start: number; end: number } | undefined;
}

interface Compiled {
  readonly rule: Rule;
  readonly re: RE2;
}

/**
 * Rules per RE2.Set. One set over all ~80 rules needs a DFA larger than RE2's state cache: the cache
 * is flushed and rebuilt mid-scan and latency turns bimodal (measured on the bench corpora: p99
 * 2.3 ms per item). Measured per set size (2 KB median / corpus p99, µs): 16 -> 31 / 111,
 * 24 -> 22 / 89, 32 -> 18 / 71, 48 -> 14 / 86. 32 keeps both low.
 */
const RULES_PER_SET = 32;

/**
 * Rules per RE2.Set among the data rules (stage3/data-rules.ts). Their sentence-long gaps after
 * common words keep many partial matches alive at once, so their states multiply much faster than
 * the others': on 300 different 2 KB memories, the 19 data rules that share sets cost 349 µs median
 * in one set (its DFA cache overflows and is rebuilt mid-scan; the first 14 alone 7.4 µs, the first
 * 16 already 115 µs), and 5.4 + 3.5 µs in two sets of 10 and 9.
 */
const DATA_RULES_PER_SET = 10;

/** At most this many findings per rule and text: enough to redact, bounded on hostile input. */
const MAX_FINDINGS_PER_RULE = 256;

/** RE2 syntax for a rule with its case mode inline, so rules of both modes share one set. */
function inlineSource(rule: Rule): string {
  return rule.caseSensitive ? rule.pattern : `(?i:${rule.pattern})`;
}

/**
 * UTF-16 offsets of byte offsets into the UTF-8 encoding of a string, for text that is not ASCII.
 * Each rule's matches come in text order, so a cursor moves forward from the previous answer (and
 * back to the start for the next rule) instead of decoding the prefix again for every offset. Byte
 * offsets here are match boundaries, which RE2 in UTF-8 mode puts between code points: each code
 * point is one UTF-16 unit, or two from four UTF-8 bytes on (what the decoded prefix's length was).
 */
class Utf16Offsets {
  private byte = 0;
  private unit = 0;

  constructor(private readonly bytes: Buffer) {}

  of(byteOffset: number): number {
    if (byteOffset < this.byte) {
      this.byte = 0;
      this.unit = 0;
    }
    const bytes = this.bytes;
    let unit = this.unit;
    for (let b = this.byte; b < byteOffset; b++) {
      const x = bytes[b]!;
      // A lead byte starts a code point; continuation bytes (10xxxxxx) add nothing.
      if ((x & 0xc0) !== 0x80) unit += x >= 0xf0 ? 2 : 1;
    }
    this.byte = byteOffset;
    this.unit = unit;
    return unit;
  }
}

/**
 * Scans texts with a fixed rule set. A text first goes through one RE2.Set pass (every rule at
 * once, one linear DFA scan over its UTF-8 bytes); only the rules that matched run again, on the
 * string, to find their spans. Benign text, the common case, costs that single pass.
 */
export class RuleScanner {
  private readonly compiled: Compiled[];
  private readonly sets: { set: InstanceType<typeof RE2.Set>; offset: number }[] = [];
  /**
   * The rules of their own set (Rule.ownSet) need no set pass: a set of one rule answers what the
   * rule's own search answers, at the cost of the same DFA pass over the text, and that search runs
   * anyway wherever the rule matches (the act-on-something-sensitive rule matches 295 of 300
   * different 2 KB memories). Each is a candidate of every text.
   */
  private readonly solo: number[] = [];

  constructor(rules: readonly Rule[], setSize = RULES_PER_SET) {
    // Rules of their own set last, so each set covers consecutive indices.
    const ordered = [...rules.filter((r) => !r.ownSet), ...rules.filter((r) => r.ownSet)];
    this.compiled = ordered.map((rule) => ({ rule, re: new RE2(inlineSource(rule), 'gu') }));
    const shared = ordered.length - rules.filter((r) => r.ownSet).length;
    for (let offset = 0; offset < shared;) {
      const size = ordered[offset]!.data ? Math.min(setSize, DATA_RULES_PER_SET) : setSize;
      let end = Math.min(shared, offset + size);
      // A set never mixes data rules with the others (their states multiply).
      for (let i = offset + 1; i < end; i++) {
        if (Boolean(ordered[i]!.data) !== Boolean(ordered[offset]!.data)) {
          end = i;
          break;
        }
      }
      const set = new RE2.Set(ordered.slice(offset, end).map(inlineSource), 'u');
      this.sets.push({ set, offset });
      offset = end;
    }
    for (let i = shared; i < ordered.length; i++) this.solo.push(i);
  }

  /**
   * Indices of the rules that match somewhere in the bytes. An RE2.Set runs only on a DFA; if
   * that DFA runs out of memory on a hostile input, RE2.Set throws rather than answer wrongly,
   * and every rule of that set becomes a candidate (each single RE2 regex falls back to its NFA,
   * still linear), so no input can blind the scanner.
   */
  private candidates(bytes: Buffer): number[] {
    const out: number[] = [];
    for (const { set, offset } of this.sets) {
      try {
        for (const i of set.match(bytes)) out.push(offset + i);
      } catch {
        for (let i = 0; i < set.size; i++) out.push(offset + i);
      }
    }
    for (const i of this.solo) out.push(i);
    return out;
  }

  /**
   * Every accepted match of every rule, in rule order (rules of their own set last) then text order. The text is converted to
   * UTF-8 once; matches are found on those bytes and their offsets mapped back to UTF-16 (identity
   * for ASCII text, the common case; Utf16Offsets otherwise).
   */
  scan(text: string): Finding[] {
    if (text.length === 0) return [];
    const bytes = Buffer.from(text, 'utf8');
    const hits = this.candidates(bytes);
    if (hits.length === 0) return [];
    const ascii = bytes.length === text.length;
    const offsets = new Utf16Offsets(bytes);
    const findings: Finding[] = [];
    for (const i of hits) {
      const c = this.compiled[i];
      if (!c) continue;
      const { rule, re } = c;
      re.lastIndex = 0;
      let count = 0;
      let m: ReturnType<typeof re.exec> | null;
      while (count < MAX_FINDINGS_PER_RULE && (m = re.exec(bytes)) !== null) {
        const byteStart = m.index;
        const byteEnd = byteStart + m[0].length;
        if (byteEnd === byteStart) {
          re.lastIndex = byteEnd + 1;
          continue;
        }
        const start = ascii ? byteStart : offsets.of(byteStart);
        const end = ascii ? byteEnd : offsets.of(byteEnd);
        const span = rule.accept ? rule.accept(text, start, end) : { start, end };
        if (span) {
          findings.push({
            category: rule.category,
            type: rule.type,
            start: span.start,
            end: span.end,
            ...(rule.tier === 'strong' ? { strong: true } : {}),
            ...(rule.data ? { data: true } : {}),
            ...(rule.corroborate ? { corroborate: true } : {}),
          });
          count++;
        }
      }
    }
    return findings;
  }
}
