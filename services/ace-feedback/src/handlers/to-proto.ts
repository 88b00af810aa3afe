import { toProtoMemory } from '@engram/memories';
import type {
  Feature as FeatureMessage,
  ProgressSession as SessionMessage,
  Run as RunMessage,
} from '@engram/proto/engram/ace/v1/ace';
import type { Memory } from '@engram/proto/engram/memory/v1/memory';
import type { CuratedMemory } from '../domain/curation.ts';
import type { Feature } from '../domain/feature-status.ts';
import type { ProgressSession } from '../domain/progress-session.ts';
import type { Run } from '../domain/run-status.ts';

export function runToProto(r: Run): RunMessage {
  return {
    run_id: r.runId,
    agent_id: r.agentId,
    task_type: r.taskType,
    memory_ids_used: [...r.memoryIdsUsed],
    status: r.status,
    success: r.success ?? undefined,
    evaluation: r.evaluation ?? undefined,
    reflection_id: r.reflectionId ?? undefined,
    started_at: r.startedAt.toISOString(),
    completed_at: r.completedAt?.toISOString(),
  };
}

export function sessionToProto(s: ProgressSession): SessionMessage {
  return {
    session_id: s.sessionId,
    agent_id: s.agentId,
    completed: [...s.completed],
    in_progress: s.inProgress,
    next: [...s.next],
    blocked: s.blocked.map((b) => ({ item: b.item, reason: b.reason })),
    summary: s.summary,
    updated_at: s.updatedAt.toISOString(),
  };
}

export function featureToProto(f: Feature): FeatureMessage {
  return {
    feature_id: f.featureId,
    agent_id: f.agentId,
    description: f.description,
    test_steps: [...f.testSteps],
    status: f.status,
    failure_reason: f.failureReason ?? undefined,
    verified_by: f.verifiedBy ?? undefined,
    updated_at: f.updatedAt.toISOString(),
  };
}

export function curatedToProto(m: CuratedMemory): Memory {
  return { ...toProtoMemory(m), effectiveness_score: m.effectiveness_score };
}
