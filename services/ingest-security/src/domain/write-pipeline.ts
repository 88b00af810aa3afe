import { actingAgent, decideWrite, type Principal } from '@engram/auth';
import { InvalidArgumentError, SecurityRejectedError } from '@engram/errors';
import { isMemoryType, type MemoryDraft, type Scope } from '@engram/memory-model';
import {
  assertValidWrite,
  screenContent,
  type ScreeningSettings,
  type WriteLimits,
} from '@engram/security-rules';
import type { EngramMetrics } from '@engram/telemetry';
import type { AuditEventInput } from './ports.ts';
import { inferScope, type ScopeSource } from './scope-inference.ts';
import { countVerdict } from './verdict-metrics.ts';
import { auditDetails, verdictRecord } from './verdict-record.ts';
import type { WriteOrigin, WriteRequest } from './write-request.ts';

export interface PipelineSettings extends ScreeningSettings {
  readonly limits: WriteLimits;
  readonly enableTrustLevels: boolean;
  readonly policyVersion: string;
  /** Where verdicts and detections are counted (engram_screening_*); not counted when absent. */
  readonly metrics?: EngramMetrics | undefined;
}

/** A screened write: stored as `draft`, or refused with `error` after `audit` is recorded. */
export type ScreenOutcome =
  | { readonly kind: 'accepted'; readonly draft: MemoryDraft }
  | { readonly kind: 'rejected'; readonly error: SecurityRejectedError; readonly audit: AuditEventInput };

const DEFAULT_NAMESPACE = 'default';
const MAX_ERROR_DETECTIONS = 20;

/** Type fields the specification stores in metadata. */
function metadataWithTypeFields(req: WriteRequest): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...(req.metadata ?? {}) };
  if (req.steps.length > 0) metadata.steps = [...req.steps];
  if (req.trigger_conditions.length > 0) metadata.trigger_conditions = [...req.trigger_conditions];
  if (req.severity !== undefined && req.severity !== '') metadata.severity = req.severity;
  return metadata;
}

const blank = (v: string | undefined): v is undefined | '' => v === undefined || v === '';

/**
 * The one write pipeline every channel goes through: the acting agent (bound keys), stage 1
 * validation, scope (explicit, else inferred, else the type's default) and trust decided and
 * checked twice, stages 2-4 and the content policy at the decided scope, provenance with the full
 * verdict. Stage 1 and authorization failures throw domain errors; a content-policy reject is
 * returned (with the audit event to record first) so the caller can record it before failing.
 */
export async function screenWrite(
  principal: Principal,
  req: WriteRequest,
  origin: WriteOrigin,
  settings: PipelineSettings,
  signal?: AbortSignal,
): Promise<ScreenOutcome> {
  const agentId = actingAgent(principal, req.agent_id);
  const memoryType = blank(req.memory_type) ? 'standard' : req.memory_type;
  assertValidWrite({ ...req, agent_id: agentId, memory_type: memoryType }, settings.limits);
  if (!isMemoryType(memoryType)) throw new InvalidArgumentError('unknown memory_type');
  const explicitScope = blank(req.scope) ? undefined : (req.scope as Scope);
  const inferred = explicitScope ? undefined : inferScope(memoryType, req.content, req.metadata);
  const scopeSource: ScopeSource = inferred?.source ?? 'explicit';
  const decision = decideWrite({
    principal,
    trustLevel: req.trust_level,
    scope: explicitScope,
    defaultScope: inferred?.scope ?? 'agent-private',
    enableTrustLevels: settings.enableTrustLevels,
  });
  if (decision.scope !== 'agent-shared' && req.shared_with.length > 0) {
    throw new InvalidArgumentError('request failed validation', [
      {
        field: 'shared_with',
        description: 'only an agent-shared memory has a shared_with list',
        reason: 'INVALID_VALUE',
      },
    ]);
  }

  const screened = await screenContent(
    { content: req.content, error_pattern: req.error_pattern, metadata: metadataWithTypeFields(req) },
    { scope: decision.scope, trustLevel: decision.trustLevel, memoryType, channel: origin.channel },
    {
      policy: settings.policy,
      classifier: settings.classifier,
      classifierThreshold: settings.classifierThreshold,
      classifierEscalation: settings.classifierEscalation,
      signal,
    },
  );
  if (settings.metrics) countVerdict(settings.metrics, screened);
  const context = {
    origin,
    memoryType,
    scope: decision.scope,
    trustLevel: decision.trustLevel,
    scopeSource,
    scopeCapped: decision.capped,
    policyVersion: settings.policyVersion,
  };
  if (screened.action === 'reject') {
    // One detection per (category, type, field), at most MAX_ERROR_DETECTIONS: the error travels in
    // gRPC trailers (size-limited) and the REST body; the audit event has the counts.
    const seen = new Set<string>();
    const rejected = screened.detections
      .filter((d) => d.action === 'reject')
      .filter((d) => {
        const key = `${d.category}:${d.type}:${d.field}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .slice(0, MAX_ERROR_DETECTIONS);
    return {
      kind: 'rejected',
      error: new SecurityRejectedError(
        'the content policy rejected this write',
        rejected.map((d) => ({
          category: d.category,
          type: d.type,
          action: d.action,
          stage: d.stage,
          ...(d.field === 'content' && d.start !== undefined ? { start: d.start, end: d.end } : {}),
        })),
      ),
      audit: { event_type: 'SECURITY_REJECTED', agent_id: agentId, details: auditDetails(screened, context) },
    };
  }
  return {
    kind: 'accepted',
    draft: {
      namespace: blank(req.namespace) ? DEFAULT_NAMESPACE : req.namespace,
      agent_id: agentId,
      content: screened.write.content,
      memory_type: memoryType,
      scope: decision.scope,
      trust_level: decision.trustLevel,
      metadata: screened.write.metadata ?? {},
      content_flags: [...screened.contentFlags],
      shared_with: [...new Set(req.shared_with)],
      session_id: req.session_id ?? null,
      sequence_number: req.sequence_number ?? null,
      entity_id: req.entity_id ?? null,
      error_pattern: screened.write.error_pattern ?? null,
      source_trajectory_id: req.source_trajectory_id ?? null,
      provenance: {
        channel: origin.channel,
        kind: origin.kind,
        agent_id: agentId,
        api_key_id: principal.keyId,
        source_run_id: origin.sourceRunId ?? null,
        interaction_id: origin.interactionId ?? null,
        depth: origin.depth,
        verdict: verdictRecord(screened, context),
        taint: [decision.trustLevel, ...screened.taint],
        policy_version: settings.policyVersion,
      },
    },
  };
}
