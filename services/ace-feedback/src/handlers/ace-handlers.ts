import { callerOf, type Principal } from '@engram/auth';
import type { HandlersOf } from '@engram/grpc-kit';
import type { AceServiceService } from '@engram/proto/engram/ace/v1/ace';
import type { ScreeningSettings } from '@engram/security-rules';
import { consolidate } from '../domain/consolidation.ts';
import { curate } from '../domain/curation.ts';
import { applyDelta } from '../domain/delta.ts';
import { createFeature, getFeature, listFeatures, markFeature } from '../domain/features.ts';
import type { RejectionLog } from '../domain/free-text-screen.ts';
import type {
  ConsolidationLog,
  FeatureRepository,
  MemoryLookup,
  ReadScreen,
  RunRepository,
  SessionRepository,
  VoteRepository,
  WritePipeline,
} from '../domain/ports.ts';
import { addReflection } from '../domain/reflection.ts';
import { completeRun, getRun, startRun } from '../domain/runs.ts';
import { createSession, getSession, updateSession } from '../domain/sessions.ts';
import { castVote } from '../domain/votes.ts';
import { writeResultToProto } from '@engram/memories';
import { curatedToProto, featureToProto, runToProto, sessionToProto } from './to-proto.ts';

/** CONTENT_POLICY_* and stage 4: free text of sessions, features and run evaluations is screened like content. */
export interface AceDeps extends ScreeningSettings {
  readonly votes: VoteRepository;
  readonly memories: MemoryLookup;
  readonly runs: RunRepository;
  readonly sessions: SessionRepository;
  readonly features: FeatureRepository;
  readonly pipeline: WritePipeline;
  readonly screen: ReadScreen;
  readonly log: ConsolidationLog;
  readonly rejections: RejectionLog;
}

/** Every AceService RPC: proto <-> domain; the rules live in domain/. */
export function aceHandlers(deps: AceDeps): HandlersOf<typeof AceServiceService, Principal> {
  return {
    async vote(req, { principal }) {
      const e = await castVote(deps, principal, {
        memoryId: req.memory_id,
        vote: req.vote,
        voterAgentId: req.voter_agent_id,
        context: req.context,
        taskId: req.task_id,
      });
      return {
        memory_id: req.memory_id.toLowerCase(),
        helpful: e.helpful,
        harmful: e.harmful,
        effectiveness_score: e.score,
      };
    },

    async applyDelta(req, { principal, metadata }) {
      const out = await applyDelta(deps, principal, callerOf(metadata), {
        agentId: req.agent_id,
        operations: req.operations.map((op) => ({
          type: op.type,
          content: op.content,
          memoryType: op.memory_type,
          agentId: op.agent_id,
          scope: op.scope,
          namespace: op.namespace,
          metadata: op.metadata,
          memoryId: op.memory_id,
          supersededBy: op.superseded_by,
          deprecationReason: op.deprecation_reason,
        })),
      });
      return {
        applied: out.applied,
        results: out.results.map((r) => ({
          index: r.index,
          type: r.type,
          memory_id: r.memoryId,
          status: r.status,
          reason: r.reason,
          detections: r.detections.map((d) => ({ ...d })),
        })),
      };
    },

    addReflection: async (req, { principal, metadata }) =>
      writeResultToProto(
        await addReflection(deps.pipeline, principal, callerOf(metadata), {
          content: req.content,
          agentId: req.agent_id,
          sourceTrajectoryId: req.source_trajectory_id,
          errorPattern: req.error_pattern,
          correctApproach: req.correct_approach,
          applicableContexts: req.applicable_contexts,
          scope: req.scope,
          namespace: req.namespace,
        }),
      ),

    async createSession(req, { principal }) {
      return sessionToProto(
        await createSession(deps.sessions, principal, { sessionId: req.session_id, agentId: req.agent_id }),
      );
    },
    async getSession(req, { principal }) {
      return sessionToProto(
        await getSession(deps.sessions, principal, { sessionId: req.session_id, agentId: req.agent_id }),
      );
    },
    async updateSession(req, { principal }) {
      const s = await updateSession(deps, principal, {
        sessionId: req.session_id,
        agentId: req.agent_id,
        change: {
          completed: req.completed,
          inProgress: req.in_progress,
          next: req.next,
          blocked: req.blocked,
          summary: req.summary,
        },
      });
      return sessionToProto(s);
    },

    async createFeature(req, { principal }) {
      return featureToProto(
        await createFeature(deps, principal, {
          featureId: req.feature_id,
          description: req.description,
          testSteps: req.test_steps,
          agentId: req.agent_id,
        }),
      );
    },
    async getFeature(req, { principal }) {
      return featureToProto(await getFeature(deps, principal, req.feature_id));
    },
    async completeFeature(req, { principal }) {
      return featureToProto(
        await markFeature(deps, principal, {
          featureId: req.feature_id,
          to: 'complete',
          verifiedBy: req.verified_by,
          reason: '',
        }),
      );
    },
    async failFeature(req, { principal }) {
      return featureToProto(
        await markFeature(deps, principal, {
          featureId: req.feature_id,
          to: 'failed',
          verifiedBy: '',
          reason: req.reason,
        }),
      );
    },
    async listFeatures(req, { principal }) {
      const page = await listFeatures(deps, principal, { status: req.status, cursor: req.cursor });
      return { features: page.features.map(featureToProto), next_cursor: page.nextCursor };
    },

    async startRun(req, { principal }) {
      return runToProto(
        await startRun(deps, principal, {
          runId: req.run_id,
          agentId: req.agent_id,
          taskType: req.task_type,
          memoryIdsUsed: req.memory_ids_used,
        }),
      );
    },
    async getRun(req, { principal }) {
      return runToProto(await getRun(deps, principal, req.run_id));
    },
    async completeRun(req, { principal, metadata }) {
      return runToProto(
        await completeRun(deps, principal, callerOf(metadata), {
          runId: req.run_id,
          success: req.success,
          evaluation: req.evaluation,
        }),
      );
    },

    async curate(req, { principal }) {
      const c = await curate(deps, principal, {
        namespace: req.namespace,
        agentId: req.agent_id,
        topK: req.top_k,
        threshold: req.min_effectiveness_threshold,
      });
      return {
        promoted: c.promoted.map(curatedToProto),
        flagged: c.flagged.map(curatedToProto),
        consolidation_candidates: c.candidates.map((p) => ({
          memory_id_a: p.a.id,
          memory_id_b: p.b.id,
          content_a: p.a.content,
          content_b: p.b.content,
          similarity: p.similarity,
        })),
      };
    },
    async consolidate(req, { principal, metadata }) {
      const out = await consolidate(deps, principal, callerOf(metadata), {
        namespace: req.namespace,
        agentId: req.agent_id,
        dryRun: req.dry_run,
        similarityThreshold: req.similarity_threshold,
        useLlm: req.use_llm,
      });
      return {
        dry_run: out.dryRun,
        merges: out.merges.map((m) => ({
          kept_id: m.keptId,
          deprecated_id: m.deprecatedId,
          similarity: m.similarity,
        })),
        unverified_ids: out.unverifiedIds,
      };
    },
  };
}
