import { actingAgent, type Caller, type Principal } from '@engram/auth';
import type { WriteResult } from '@engram/memory-model';
import { ID_MAX_LENGTH, LIST_ENTRY_MAX_LENGTH, LIST_MAX_ENTRIES } from '@engram/security-rules';
import { FieldChecks } from './field-checks.ts';
import { pipelineError } from './pipeline-errors.ts';
import type { WritePipeline } from './ports.ts';

export interface ReflectionRequest {
  readonly content: string;
  readonly agentId: string;
  readonly sourceTrajectoryId: string;
  readonly errorPattern: string;
  readonly correctApproach: string;
  readonly applicableContexts: readonly string[];
  readonly scope?: string | undefined;
  readonly namespace?: string | undefined;
}

/**
 * Records a reflection (a lesson from a trajectory) through the full write pipeline: screening,
 * signing, provenance (kind reflection). correct_approach and applicable_contexts travel in metadata.
 * The type's default scope is global; the pipeline caps it to agent-private for untrusted content,
 * and refuses an explicit global for it (403).
 */
export async function addReflection(
  pipeline: WritePipeline,
  principal: Principal,
  caller: Caller,
  req: ReflectionRequest,
): Promise<WriteResult> {
  new FieldChecks()
    .id('source_trajectory_id', req.sourceTrajectoryId, ID_MAX_LENGTH)
    .text('correct_approach', req.correctApproach, LIST_ENTRY_MAX_LENGTH)
    .list('applicable_contexts', req.applicableContexts, LIST_MAX_ENTRIES, LIST_ENTRY_MAX_LENGTH)
    .throwIfAny();
  const agentId = actingAgent(principal, req.agentId);
  const metadata: Record<string, unknown> = {};
  if (req.correctApproach !== '') metadata.correct_approach = req.correctApproach;
  if (req.applicableContexts.length > 0) metadata.applicable_contexts = [...req.applicableContexts];
  const res = await pipeline.ingest(
    {
      items: [
        {
          content: req.content,
          agent_id: agentId,
          memory_type: 'reflection',
          scope: req.scope,
          namespace: req.namespace,
          metadata,
          shared_with: [],
          steps: [],
          trigger_conditions: [],
          error_pattern: req.errorPattern === '' ? undefined : req.errorPattern,
          source_trajectory_id: req.sourceTrajectoryId === '' ? undefined : req.sourceTrajectoryId,
        },
      ],
      kind: 'reflection',
      depth: 0,
      atomic: true,
      deprecations: [],
    },
    caller,
  );
  const [r] = res.results;
  if (r?.error) throw pipelineError(r.error);
  if (!res.applied || r?.id === undefined) throw new Error('the write pipeline stored no reflection');
  return {
    id: r.id,
    deduplicated: r.deduplicated,
    scope: r.scope ?? '',
    content_flags: [...r.content_flags],
    // A write that names no trust_level is labelled with the principal's own level (the pipeline's rule).
    trust_level: principal.trust,
    memory_type: 'reflection',
    namespace: req.namespace === undefined || req.namespace === '' ? 'default' : req.namespace,
  };
}
