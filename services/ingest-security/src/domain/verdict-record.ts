import type { DecidedDetection, ScreenResult } from '@engram/security-rules';
import type { ScopeSource } from './scope-inference.ts';
import type { WriteOrigin } from './write-request.ts';

export interface VerdictContext {
  readonly origin: WriteOrigin;
  readonly memoryType: string;
  readonly scope: string;
  readonly trustLevel: string;
  readonly scopeSource: ScopeSource;
  readonly scopeCapped: boolean;
  readonly policyVersion: string;
}

/** Bounds that keep a hostile input (thousands of findings) within the record and event sizes. */
const MAX_RECORDED_DETECTIONS = 200;
const MAX_AUDIT_DETECTIONS = 50;

/** A detection as recorded: where and what, never the matched text. JSON only (no undefined). */
function detectionRecord(d: DecidedDetection): Record<string, unknown> {
  return {
    category: d.category,
    type: d.type,
    action: d.action,
    stage: d.stage,
    field: d.field,
    ...(d.start !== undefined && d.end !== undefined ? { start: d.start, end: d.end } : {}),
  };
}

function countByStage(detections: readonly DecidedDetection[], stage: number): number {
  return detections.filter((d) => d.stage === stage).length;
}

/**
 * The full content-security verdict recorded in provenance: the action, each stage's outcome (stage
 * 3 with its screening profile and learned-signal score),
 * every detection (category, type, action, stage, field, span), the classifier outcome, and how
 * the scope was decided.
 */
export function verdictRecord(
  screened: ScreenResult<{ content: string }>,
  ctx: VerdictContext,
): Record<string, unknown> {
  return {
    action: screened.action,
    stages: {
      '1': 'passed',
      '2': { detections: countByStage(screened.detections, 2) },
      // The profile the write was screened in and the learned signal's score say why stage 3 decided
      // as it did (policy/screening-profile.ts in @engram/security-rules).
      '3': {
        detections: countByStage(screened.detections, 3),
        profile: screened.profile,
        model_score: Math.round(screened.modelScore * 1000) / 1000,
      },
      '4': { ...screened.classifier },
    },
    detections: screened.detections.slice(0, MAX_RECORDED_DETECTIONS).map(detectionRecord),
    detections_total: screened.detections.length,
    content_flags: [...screened.contentFlags],
    scope: ctx.scope,
    scope_source: ctx.scopeSource,
    scope_capped: ctx.scopeCapped,
  };
}

/** SECURITY_REJECTED details: categories, types and where they were found; never content. */
export function auditDetails(
  screened: ScreenResult<{ content: string }>,
  ctx: VerdictContext,
): Record<string, unknown> {
  const fired = screened.detections.filter((d) => d.action === 'reject');
  return {
    reason: 'content_policy',
    categories: [...new Set(fired.map((d) => d.category))],
    types: [...new Set(fired.map((d) => `${d.category}:${d.type}`))],
    detections_total: screened.detections.length,
    detections: screened.detections.slice(0, MAX_AUDIT_DETECTIONS).map((d) => ({
      category: d.category,
      type: d.type,
      action: d.action,
      stage: d.stage,
      field: d.field,
    })),
    classifier: { ...screened.classifier },
    channel: ctx.origin.channel,
    kind: ctx.origin.kind,
    memory_type: ctx.memoryType,
    scope: ctx.scope,
    trust_level: ctx.trustLevel,
    scope_source: ctx.scopeSource,
    policy_version: ctx.policyVersion,
  };
}
