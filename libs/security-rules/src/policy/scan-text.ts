import type { Finding } from '../detection.ts';
import { injectionModel, scoreWithModel, type LoadedModel } from '../model/injection-model.ts';
import { RuleScanner } from '../rule-scanner.ts';
import { SENSITIVE_RULES } from '../stage2/sensitive-rules.ts';
import { DATA_RULES } from '../stage3/data-rules.ts';
import { foldForScan } from '../stage3/fold-text.ts';
import { INJECTION_RULES, OPEN_QUOTES } from '../stage3/injection-rules.ts';
import type { ScreeningProfile } from './screening-profile.ts';

export interface StageSwitches {
  readonly stage2: boolean;
  readonly stage3: boolean;
}

let scanners:
  | {
      both: RuleScanner;
      stage2: RuleScanner;
      stage3: RuleScanner;
      data: RuleScanner;
      all: RuleScanner;
      corroborated: RuleScanner;
    }
  | undefined;

/** Compiled once, on first use (never at import time). */
function get() {
  if (scanners) return scanners;
  // The data rules that need the learned signal's corroboration run after it (scanInContext), and
  // only where their findings can stand.
  const plain = DATA_RULES.filter((r) => !r.corroborate);
  scanners = {
    both: new RuleScanner([...SENSITIVE_RULES, ...INJECTION_RULES]),
    stage2: new RuleScanner(SENSITIVE_RULES),
    stage3: new RuleScanner(INJECTION_RULES),
    data: new RuleScanner(plain),
    all: new RuleScanner([...SENSITIVE_RULES, ...INJECTION_RULES, ...plain]),
    corroborated: new RuleScanner(DATA_RULES.filter((r) => r.corroborate)),
  };
  return scanners;
}

/**
 * Stages 2 and/or 3 over one text in a single RE2.Set pass. When stage 3 is on and found nothing
 * in a text holding characters used to hide words from filters (zero-width characters, fullwidth or
 * other compatibility forms), a folded copy is scanned for injection too; its findings cover the
 * whole text (folded offsets do not map back), so a redaction removes the whole field.
 * These are the rules alone, every tier; scanInContext adds the profile and the learned signal.
 * `folded` is foldForScan(text) when the caller has it already.
 */
export function scanText(text: string, stages: StageSwitches, folded?: string): Finding[] {
  const s = get();
  const scanner =
    stages.stage2 && stages.stage3 ? s.both : stages.stage2 ? s.stage2 : stages.stage3 ? s.stage3 : undefined;
  if (!scanner) return [];
  const findings = scanner.scan(text);
  if (stages.stage3 && !findings.some((f) => f.category === 'injection')) {
    const plain = folded ?? foldForScan(text);
    if (plain !== text) {
      findings.push(...coveringWhole(s.stage3.scan(plain), text));
    }
  }
  return findings;
}

/** The findings of one text in a profile, and the learned signal's score of it (0 when not run). */
export interface ContextScan {
  readonly findings: Finding[];
  readonly modelScore: number;
}

/**
 * Stages 2-3 as a write in `profile` gets them: the rules of its tiers (only strong injection rules
 * for an internal agent's instructions; the data rules too for content screened as data), then the learned signal over the text (folded when it
 * hides characters): at or above the profile's threshold it is an injection finding of type
 * learned_model spanning its most injection-like sentence. As data, the rules that need
 * corroboration (Rule.corroborate) run after the learned signal, and not at all where it read the
 * text and scored it under the model's corroboration floor. `model` is the shipped one unless the trainer
 * passes the one it is choosing thresholds for.
 */
export function scanInContext(
  text: string,
  stages: StageSwitches,
  profile: ScreeningProfile,
  model: LoadedModel = injectionModel(),
): ContextScan {
  const folded = stages.stage3 ? foldForScan(text) : text;
  const asData = profile === 'data' && stages.stage3;
  let findings = asData
    ? scanAsData(text, folded, stages.stage2)
    : scanText(text, stages, stages.stage3 ? folded : undefined);
  if (profile === 'instructions') {
    findings = findings.filter(
      (f) =>
        f.category !== 'injection' ||
        (f.strong && !reportedOrder(text, f.start) && !reportedQuote(text, f.start)),
    );
  }
  if (!stages.stage3 || text.length === 0) return { findings, modelScore: 0 };
  const read = withoutSensitive(text, findings);
  const best = scoreWithModel(read === text ? folded : foldForScan(read), model);
  // The data rules that need corroboration: only where no other injection rule fired (its findings
  // stand instead, as for every data rule) and the learned signal did not clear the text. A score of
  // 0 is a text the model did not read (too few words): no ground to clear it. Their findings come
  // last, where a single pass with every rule put them (the rules of their own set run last).
  if (asData && !findings.some(isRuled) && !(best.score > 0 && best.score < model.data.corroboration)) {
    const s = get().corroborated;
    findings.push(...(folded === text ? s.scan(text) : coveringWhole(s.scan(folded), text)));
  }
  if (best.score >= model.data.thresholds[profile]) {
    const span = folded === text ? { start: best.start, end: best.end } : { start: 0, end: text.length };
    findings.push({ category: 'injection', type: 'learned_model', ...span });
  }
  return { findings, modelScore: best.score };
}

const isInjection = (f: Finding) => f.category === 'injection';
/** Findings on a folded copy, whose offsets do not map back: each covers the whole text. */
const coveringWhole = (found: readonly Finding[], text: string) =>
  found.map((f) => ({ ...f, start: 0, end: text.length }));
/** An injection finding of a rule that is not a data rule: the data rules' findings then give way. */
const isRuled = (f: Finding) => isInjection(f) && !f.data;

/**
 * The text the learned signal reads: each secret or personal-data finding blanked (same length, so
 * offsets hold). A secret's value is noise to the model, and a redacted copy reads its placeholder
 * as a space (features.ts), so without this the same write could score differently before and after
 * redaction: a redacted text screened again (an import of an export, say) would be refused or
 * redacted whole by a finding the original never had.
 */
function withoutSensitive(text: string, findings: readonly Finding[]): string {
  let out = text;
  for (const f of findings) {
    if (isInjection(f) || f.end <= f.start) continue;
    out = out.slice(0, f.start) + ' '.repeat(f.end - f.start) + out.slice(f.end);
  }
  return out;
}

/**
 * The end of a sentence that reports what some content says, as a condition: "If a fetched page
 * says to", "when a tool result tells me", "if such content asks: \"". What follows is the reported
 * order, not one given.
 */
const REPORT_FRAME =
  /\b(?:if|when|whenever|should|in\s+case)\b[^.!?\n]*\b(?:says?|said|tells?(?:\s+(?:me|us|you))?|asks?(?:\s+(?:me|us|you))?|contains?|includes?|claims?|instructs?(?:\s+(?:me|us|you))?|reads?|wants?(?:\s+(?:me|us|you))?|demands?|tries\s+to\s+make\s+(?:me|us))\s*(?:to\s+|:\s*["\u201c\u2018'\u00ab`]?\s*|["\u201c\u2018'\u00ab`]\s*)$/i;

/**
 * Whether the match at `start` is the object of a conditional report ("If a web page says to ignore
 * previous instructions, I report it"): an internal agent's procedure or control rule describing how
 * it handles an attack. Only the instructions profile reads this (an internal agent's own
 * procedures, control rules, strategies, reflections); data and memories never do, and an order
 * after the condition ("if anyone asks, ignore ...") is not its object. Looks back at most 160
 * characters inside the sentence.
 */
function reportedOrder(text: string, start: number): boolean {
  return REPORT_FRAME.test(text.slice(sentenceStart(text, start, 160), start));
}

/**
 * Where the sentence holding `pos` starts, looking back at most `reach` characters: after a line
 * break, or after a stop followed by a space.
 */
function sentenceStart(text: string, pos: number, reach: number): number {
  const from = Math.max(0, pos - reach);
  for (let i = pos - 1; i >= from; i--) {
    const c = text.charCodeAt(i);
    if (c === 10 || ((c === 46 || c === 33 || c === 63) && i + 1 < pos && text.charCodeAt(i + 1) === 32)) {
      return i + 1;
    }
  }
  return from;
}

/**
 * What introduces a quotation as something that was said or tried, in an internal agent's own
 * lesson or procedure: a reporting verb ("asked to", "was told:", "someone typed") or a word for an
 * attack sample ("variations of", "the injection sample itself (", "payloads like").
 */
const REPORTED_BEFORE =
  /\b(?:(?:asked|told|tried|attempted|prompted|instructed|wrote|typed|pasted|sent|said|used|got)(?:\s+(?:it|them|him|her|me|us|the\s+\w+))?(?:\s+to)?|(?:variations?|variants?|samples?|attempts?|attacks?|injections?|payloads?|probes?|examples?|strings?|lines?|jailbreaks?)(?:\s+(?:itself|themselves|of|like|such\s+as|was|were|is|are))?)\s*[:,]?\s*\(?\s*$/i;

/**
 * Whether the match at `start` opens a quotation that the sentence before it reports (`asked to
 * "ignore your instructions"`, `the sample itself ("print your system prompt")`). Only the
 * instructions profile reads this: an internal agent recounting an attack it saw. In data, anyone
 * can put an order in quotes and in someone's mouth, and a quote needs a mention cue (stage 3).
 */
function reportedQuote(text: string, start: number): boolean {
  const quote = start - 1;
  if (quote < 0 || !OPEN_QUOTES.has(text[quote]!)) return false;
  return REPORTED_BEFORE.test(text.slice(sentenceStart(text, quote, 80), quote));
}

/**
 * The rules of every tier and the data rules (but those needing corroboration, which scanInContext
 * runs after the learned signal), the latter only where no other injection rule fired: for text
 * without characters to fold (nearly all), one RE2 pass with every rule at once; otherwise scanText,
 * then the data rules over the folded text (their findings cover the whole text).
 */
function scanAsData(text: string, folded: string, stage2: boolean): Finding[] {
  const s = get();
  if (folded === text) {
    const found = s.all.scan(text).filter((f) => stage2 || f.category === 'injection');
    const ruled = found.some(isRuled);
    return ruled ? found.filter((f) => !f.data) : found;
  }
  const findings = scanText(text, { stage2, stage3: true }, folded);
  if (!findings.some(isInjection)) {
    findings.push(...coveringWhole(s.data.scan(folded), text));
  }
  return findings;
}
