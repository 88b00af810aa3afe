import type { Finding } from '../detection.ts';
import { scanText } from '../policy/scan-text.ts';

/** Stage 3 over one text (folding hidden characters when needed; see scanText). */
export function scanInjection(text: string): Finding[] {
  return scanText(text, { stage2: false, stage3: true });
}
