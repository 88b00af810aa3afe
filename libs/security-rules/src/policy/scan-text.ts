import type { Finding } from '../detection.ts';
import { RuleScanner } from '../rule-scanner.ts';
import { SENSITIVE_RULES } from '../stage2/sensitive-rules.ts';
import { foldForScan } from '../stage3/fold-text.ts';
import { INJECTION_RULES } from '../stage3/injection-rules.ts';

export interface StageSwitches {
  readonly stage2: boolean;
  readonly stage3: boolean;
}

let scanners: { both: RuleScanner; stage2: RuleScanner; stage3: RuleScanner } | undefined;

/** Compiled once, on first use (never at import time). */
function get() {
  scanners ??= {
    both: new RuleScanner([...SENSITIVE_RULES, ...INJECTION_RULES]),
    stage2: new RuleScanner(SENSITIVE_RULES),
    stage3: new RuleScanner(INJECTION_RULES),
  };
  return scanners;
}

/**
 * Stages 2 and/or 3 over one text in a single RE2.Set pass. When stage 3 is on and found nothing
 * in a text holding characters used to hide words from filters (zero-width characters, fullwidth or
 * other compatibility forms), a folded copy is scanned for injection too; its findings cover the
 * whole text (folded offsets do not map back), so a redaction removes the whole field.
 */
export function scanText(text: string, stages: StageSwitches): Finding[] {
  const s = get();
  const scanner =
    stages.stage2 && stages.stage3 ? s.both : stages.stage2 ? s.stage2 : stages.stage3 ? s.stage3 : undefined;
  if (!scanner) return [];
  const findings = scanner.scan(text);
  if (stages.stage3 && !findings.some((f) => f.category === 'injection')) {
    const folded = foldForScan(text);
    if (folded !== text) {
      for (const f of s.stage3.scan(folded)) findings.push({ ...f, start: 0, end: text.length });
    }
  }
  return findings;
}
