import { isMemoryType, type Scope } from '@engram/memory-model';
import {
  DEFAULT_CONTENT_POLICY,
  DEFAULT_SCOPE_BY_TYPE,
  scanWriteInContext,
  screenContent,
  type InjectionClassifier,
} from '@engram/security-rules';
import type { Item } from './corpora.ts';

/** What each detector says about one item, in the item's context. */
export interface Verdict {
  readonly rules: boolean;
  readonly model: boolean;
  /** Rule families (detection types) that fired, the learned signal excluded. */
  readonly families: readonly string[];
  readonly profile: string;
  readonly modelScore: number;
}

/** Stage 3 only (rules of the profile's tiers and the learned signal), as the write pipeline runs it. */
export function verdictOf(item: Item): Verdict {
  const scan = scanWriteInContext({ content: item.text }, item, { stage2: false, stage3: true });
  const families = [...new Set(scan.detections.filter((d) => d.type !== 'learned_model').map((d) => d.type))];
  return {
    rules: families.length > 0,
    model: scan.detections.some((d) => d.type === 'learned_model'),
    families,
    profile: scan.profile,
    modelScore: scan.modelScore,
  };
}

export type Detector = 'rules' | 'model' | 'both';
export const DETECTORS: readonly Detector[] = ['rules', 'model', 'both'];

export function fired(v: Verdict, d: Detector): boolean {
  return d === 'rules' ? v.rules : d === 'model' ? v.model : v.rules || v.model;
}

/**
 * The scope a write gets when the request names none: its type's default, capped to agent-private
 * for untrusted and unknown content (what the write pipeline decides).
 */
export function defaultScope(item: Item): Scope {
  const scope = isMemoryType(item.memoryType) ? DEFAULT_SCOPE_BY_TYPE[item.memoryType] : 'agent-private';
  return item.trustLevel === 'untrusted' || item.trustLevel === 'unknown' ? 'agent-private' : scope;
}

export interface PolicyOutcome {
  readonly refused: boolean;
  /** Stored with a flag or a redaction (any category). */
  readonly flagged: boolean;
  /** Flagged or refused because of an injection finding. */
  readonly injection: boolean;
}

/** The full screen (stages 2-3 and the default content policy) at the item's default scope. */
export async function policyOutcome(item: Item): Promise<PolicyOutcome> {
  const r = await screenContent(
    { content: item.text },
    {
      scope: defaultScope(item),
      trustLevel: item.trustLevel,
      memoryType: item.memoryType,
      channel: item.channel,
    },
    { policy: DEFAULT_CONTENT_POLICY },
  );
  return {
    refused: r.action === 'reject',
    flagged: r.action === 'flag' || r.action === 'redact',
    injection: r.detections.some((d) => d.category === 'injection'),
  };
}

/** Stage 4 over the items screened as data, with escalation `uncertain`: how often it is asked, and how long it takes. */
export async function escalation(
  items: readonly Item[],
  classifier: InjectionClassifier,
): Promise<{ writes: number; calls: number; callMs: number[] }> {
  let writes = 0;
  let calls = 0;
  const callMs: number[] = [];
  for (const item of items) {
    writes++;
    const t0 = process.hrtime.bigint();
    const r = await screenContent(
      { content: item.text },
      {
        scope: defaultScope(item),
        trustLevel: item.trustLevel,
        memoryType: item.memoryType,
        channel: item.channel,
      },
      { policy: DEFAULT_CONTENT_POLICY, classifier, classifierEscalation: 'uncertain' },
    );
    if (r.classifier.ran) {
      calls++;
      callMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  return { writes, calls, callMs };
}
