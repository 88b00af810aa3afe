import type { Principal } from '@engram/auth';
import type { HandlersOf } from '@engram/grpc-kit';
import { toProtoMemory } from '@engram/memories';
import type { Memory } from '@engram/proto/engram/memory/v1/memory';
import type { RetrievalServiceService } from '@engram/proto/engram/retrieval/v1/retrieval';
import { playbook, type PlaybookRepository } from '../domain/playbook.ts';
import type { RankedEntry } from '../domain/playbook-ranking.ts';
import type { QueryDeps } from '../domain/query-memories.ts';

const entry = (e: RankedEntry): Memory => ({
  ...toProtoMemory(e),
  score: e.score,
  relevance_score: e.relevance,
  effectiveness_score: e.effectiveness,
});

const hasPlaybook = (deps: QueryDeps): deps is QueryDeps & { playbook: PlaybookRepository } =>
  'playbook' in deps && deps.playbook !== undefined;

/**
 * Playbook and agent playbook (the feedback loop's reads): entries carry effectiveness_score. They
 * need the playbook repository in the deps (server.ts); without it both answer 501.
 */
export function playbookHandlers(
  deps: QueryDeps,
): Partial<HandlersOf<typeof RetrievalServiceService, Principal>> {
  if (!hasPlaybook(deps)) return {};
  const all = deps;
  return {
    async playbook(req, { principal }) {
      const rows = await playbook(
        all,
        principal,
        {
          query: req.query,
          agentId: req.agent_id,
          namespace: req.namespace,
          memoryTypes: req.memory_types,
          minEffectiveness: req.min_effectiveness,
          topK: req.top_k,
        },
        'playbook',
      );
      return { entries: rows.map(entry) };
    },
    async agentPlaybook(req, { principal }) {
      const rows = await playbook(
        all,
        principal,
        {
          query: req.query,
          agentId: req.agent_id,
          namespace: req.namespace,
          memoryTypes: [],
          topK: req.top_k,
          taskType: req.task_type,
        },
        'agent_playbook',
      );
      return { entries: rows.map(entry) };
    },
  };
}
