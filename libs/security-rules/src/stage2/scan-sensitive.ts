import type { Finding } from '../detection.ts';
import { scanText } from '../policy/scan-text.ts';

/** Stage 2 over one text: ssn, email, payment_card, api_key, password findings with their spans. */
export function scanSensitive(text: string): Finding[] {
  return scanText(text, { stage2: true, stage3: false });
}
