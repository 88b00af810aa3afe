import { isLowTrust, type Scope } from '@engram/memory-model';
import type { Detection } from '../detection.ts';
import {
  ClassifierError,
  CLASSIFIER_REJECT_CONFIDENCE,
  type ClassifierOutcome,
  type InjectionClassifier,
} from '../stage4/injection-classifier.ts';
import { applyRedaction } from './apply-redaction.ts';
import { actionFor, type ContentPolicy } from './content-policy.ts';
import { moreSevere, type PolicyAction } from './policy-action.ts';
import { injectionModel } from '../model/injection-model.ts';
import { scanWriteInContext, type ScannableWrite, type WriteScan } from './scan-fields.ts';
import type { ScreeningProfile } from './screening-profile.ts';

export const LLM_INJECTION_FLAG = 'llm_injection_flagged';

export interface ScreenContext {
  /** The scope the memory will be stored with (the scan preview passes global). */
  readonly scope: Scope;
  /** The content trust label it will be stored with. */
  readonly trustLevel: string;
  /** The memory type (standard when absent): procedures, control rules and strategies are instructions. */
  readonly memoryType?: string | undefined;
  /** The provenance channel (rest, grpc, mcp, cli, internal). */
  readonly channel?: string | undefined;
}

/**
 * When stage 4 is asked, among the writes the specification allows it for. `conditions`: every such
 * write (the specification's reading, the default). `uncertain`: only content screened as data
 * (untrusted, or stored through MCP) on which no rule fired and whose learned score lies in its
 * uncertain band: the writes where the screen's own verdict is least sure and an attack is most
 * likely, at a call rate the operator can budget (docs/benchmarks.md).
 */
export type ClassifierEscalation = 'conditions' | 'uncertain';

export interface ScreenOptions {
  readonly policy: ContentPolicy;
  /** Stage 4, when enabled. */
  readonly classifier?: InjectionClassifier | undefined;
  /** INJECTION_CLASSIFIER_CONFIDENCE_THRESHOLD (default 0.7). */
  readonly classifierThreshold?: number;
  /** Default `conditions`. */
  readonly classifierEscalation?: ClassifierEscalation | undefined;
  /**
   * The text stage 4 judges; by default the content and error_pattern. Callers whose text is in
   * other fields (the free text of sessions, features and run evaluations) pass it here.
   */
  readonly classifierText?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface DecidedDetection extends Detection {
  readonly action: PolicyAction;
}

export interface ScreenResult<W extends ScannableWrite> {
  /** The most severe action over all detections (allow when none). */
  readonly action: PolicyAction;
  readonly detections: readonly DecidedDetection[];
  /** `<category>:<type>` of flag and redact detections, plus llm_injection_flagged. */
  readonly contentFlags: readonly string[];
  /** `<category>:<type>` of every detection that fired (the trust label is added by the caller). */
  readonly taint: readonly string[];
  /** The write to store: redacted where the action of a detection is redact. */
  readonly write: W;
  readonly classifier: ClassifierOutcome;
  /** The screening profile the write was screened with, and the learned signal's highest score. */
  readonly profile: ScreeningProfile;
  readonly modelScore: number;
}

/** The specification's conditions for stage 4. */
function classifierAllowed(ctx: ScreenContext, detections: readonly Detection[]): boolean {
  return (
    isLowTrust(ctx.trustLevel) ||
    ctx.scope === 'agent-shared' ||
    ctx.scope === 'global' ||
    detections.some((d) => d.stage === 3)
  );
}

/** Whether the learned signal is unsure about data: no rule fired and its score is in the band. */
export function uncertainData(scan: WriteScan): boolean {
  if (scan.profile !== 'data') return false;
  if (scan.detections.some((d) => d.stage === 3 && d.type !== 'learned_model')) return false;
  const { low, high } = injectionModel().data.band;
  return scan.modelScore >= low && scan.modelScore < high;
}

function classifierRequired(opts: ScreenOptions, ctx: ScreenContext, scan: WriteScan): boolean {
  if (!classifierAllowed(ctx, scan.detections)) return false;
  return (opts.classifierEscalation ?? 'conditions') === 'conditions' || uncertainData(scan);
}

function textForClassifier(write: ScannableWrite): string {
  const parts = [write.content];
  if (write.error_pattern) parts.push(write.error_pattern);
  return parts.join('\n');
}

async function runClassifier(
  opts: ScreenOptions,
  ctx: ScreenContext,
  write: ScannableWrite,
  scan: WriteScan,
  regexAction: PolicyAction,
): Promise<ClassifierOutcome> {
  if (!opts.classifier) return { ran: false, reason: 'disabled' };
  if (regexAction === 'reject') return { ran: false, reason: 'already_rejected' };
  if (!classifierRequired(opts, ctx, scan)) return { ran: false, reason: 'not_required' };
  try {
    const text = opts.classifierText ?? textForClassifier(write);
    const confidence = await opts.classifier.classify(text, opts.signal);
    const threshold = opts.classifierThreshold ?? 0.7;
    const effect =
      confidence >= CLASSIFIER_REJECT_CONFIDENCE ? 'reject' : confidence >= threshold ? 'flag' : 'none';
    return { ran: true, status: 'ok', confidence, effect };
  } catch (err) {
    return { ran: true, status: 'error', error: err instanceof ClassifierError ? err.kind : 'failed' };
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/**
 * Stages 2-4 and the content policy for one write at a given scope and trust, screened in the
 * profile its trust, memory type and channel give it (policy/screening-profile.ts): detections, each
 * with its category's action; the most severe action; content_flags; the redacted write. Never
 * throws for content: a reject is a result, the caller records it and refuses the write.
 */
export async function screenContent<W extends ScannableWrite>(
  write: W,
  ctx: ScreenContext,
  opts: ScreenOptions,
): Promise<ScreenResult<W>> {
  const scan = scanWriteInContext(write, ctx);
  const decided: DecidedDetection[] = scan.detections.map((d) => ({
    ...d,
    action: actionFor(opts.policy, d.category, ctx.scope),
  }));
  let action = decided.reduce<PolicyAction>((a, d) => moreSevere(a, d.action), 'allow');
  const classifier = await runClassifier(opts, ctx, write, scan, action);
  const flags = decided
    .filter((d) => d.action === 'flag' || d.action === 'redact')
    .map((d) => `${d.category}:${d.type}`);
  if (classifier.ran && classifier.status === 'ok' && classifier.effect !== 'none') {
    decided.push({
      category: 'injection',
      type: 'llm_classifier',
      stage: 4,
      field: 'content',
      action: classifier.effect === 'reject' ? 'reject' : 'flag',
    });
    // >= 0.8 rejects; otherwise the flag is added and the regex action kept (at least "flag",
    // since a flagged memory is what "flag" means).
    if (classifier.effect === 'reject') action = 'reject';
    else {
      flags.push(LLM_INJECTION_FLAG);
      action = moreSevere(action, 'flag');
    }
  }
  const toRedact = action === 'reject' ? [] : decided.filter((d) => d.action === 'redact');
  return {
    action,
    detections: decided,
    contentFlags: action === 'reject' ? [] : unique(flags),
    taint: unique(decided.map((d) => `${d.category}:${d.type}`)),
    write: applyRedaction(write, toRedact),
    classifier,
    profile: scan.profile,
    modelScore: scan.modelScore,
  };
}
