import type { Detection, Finding } from '../detection.ts';
import { looksLikeSecretValue, SECRET_KEY_NAME, secretTypeOfKey } from '../stage2/secret-values.ts';
import { scanInContext, scanText, type StageSwitches } from './scan-text.ts';
import { screeningProfile, type ScreeningProfile, type WriteContext } from './screening-profile.ts';

/** The text a write stores: content, error_pattern, and every string inside metadata. */
export interface ScannableWrite {
  readonly content: string;
  readonly error_pattern?: string | undefined;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
}

const ALL_STAGES: StageSwitches = { stage2: true, stage3: true };

function pushFindings(field: string, findings: readonly Finding[], out: Detection[]): void {
  for (const f of findings) {
    const stage = f.category === 'injection' ? 3 : 2;
    out.push({ category: f.category, type: f.type, stage, field, start: f.start, end: f.end });
  }
}

function scanField(field: string, text: string, stages: StageSwitches, out: Detection[]): void {
  pushFindings(field, scanText(text, stages), out);
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

/** The detections of a write in its context, and the learned signal's highest score over its fields. */
export interface WriteScan {
  readonly detections: Detection[];
  readonly profile: ScreeningProfile;
  readonly modelScore: number;
}

/**
 * Stages 2 and 3 over every stored text of a write, the rules alone and every tier (what
 * `scanInjection` and the rule tests see). A metadata string under a secret-named key
 * ({"password": "hunter2"}, {"api_key": "..."}) is a detection over the whole value, since the key
 * is what says it is a secret.
 */
export function scanWrite(write: ScannableWrite, stages: StageSwitches = ALL_STAGES): Detection[] {
  return scanFields(write, stages, undefined).detections;
}

/**
 * scanWrite as the write pipeline runs it: the write's context picks its screening profile, which
 * picks the rule tiers and the learned signal's threshold (policy/screening-profile.ts).
 */
export function scanWriteInContext(
  write: ScannableWrite,
  context: WriteContext,
  stages: StageSwitches = ALL_STAGES,
): WriteScan {
  return scanFields(write, stages, screeningProfile(context));
}

function scanFields(
  write: ScannableWrite,
  stages: StageSwitches,
  profile: ScreeningProfile | undefined,
): WriteScan {
  const out: Detection[] = [];
  let modelScore = 0;
  const field = (name: string, text: string) => {
    if (profile === undefined) {
      scanField(name, text, stages, out);
      return;
    }
    const scan = scanInContext(text, stages, profile);
    modelScore = Math.max(modelScore, scan.modelScore);
    pushFindings(name, scan.findings, out);
  };
  field('content', write.content);
  if (write.error_pattern) field('error_pattern', write.error_pattern);
  if (write.metadata) {
    forEachString(write.metadata, 'metadata', undefined, (path, key, text) => {
      field(path, text);
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
  return { detections: out, profile: profile ?? 'memory', modelScore };
}
