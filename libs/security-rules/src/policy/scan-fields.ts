import type { Detection } from '../detection.ts';
import { looksLikeSecretValue, SECRET_KEY_NAME, secretTypeOfKey } from '../stage2/secret-values.ts';
import { scanText, type StageSwitches } from './scan-text.ts';

/** The text a write stores: content, error_pattern, and every string inside metadata. */
export interface ScannableWrite {
  readonly content: string;
  readonly error_pattern?: string | undefined;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
}

const ALL_STAGES: StageSwitches = { stage2: true, stage3: true };

function scanField(field: string, text: string, stages: StageSwitches, out: Detection[]): void {
  for (const f of scanText(text, stages)) {
    const stage = f.category === 'injection' ? 3 : 2;
    out.push({ category: f.category, type: f.type, stage, field, start: f.start, end: f.end });
  }
}

/** Calls visit(path, key, value) for every string in a JSON value (keys and array entries included). */
export function forEachString(
  value: unknown,
  path: string,
  key: string | undefined,
  visit: (path: string, key: string | undefined, text: string) => void,
): void {
  if (typeof value === 'string') visit(path, key, value);
  else if (Array.isArray(value)) value.forEach((v, i) => forEachString(v, `${path}[${i}]`, key, visit));
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) forEachString(v, `${path}.${k}`, k, visit);
  }
}

/**
 * Stages 2 and 3 over every stored text of a write. A metadata string under a secret-named key
 * ({"password": "hunter2"}, {"api_key": "..."}) is a detection over the whole value, since the key
 * is what says it is a secret.
 */
export function scanWrite(write: ScannableWrite, stages: StageSwitches = ALL_STAGES): Detection[] {
  const out: Detection[] = [];
  scanField('content', write.content, stages, out);
  if (write.error_pattern) scanField('error_pattern', write.error_pattern, stages, out);
  if (write.metadata) {
    forEachString(write.metadata, 'metadata', undefined, (path, key, text) => {
      scanField(path, text, stages, out);
      if (
        stages.stage2 &&
        key !== undefined &&
        SECRET_KEY_NAME.test(key) &&
        looksLikeSecretValue(text, { quoted: true, assignedWithEquals: true })
      ) {
        out.push({
          category: 'secrets',
          type: secretTypeOfKey(key),
          stage: 2,
          field: path,
          start: 0,
          end: text.length,
        });
      }
    });
  }
  return out;
}
