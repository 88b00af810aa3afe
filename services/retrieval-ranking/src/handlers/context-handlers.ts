import type { Principal } from '@engram/auth';
import type { HandlersOf } from '@engram/grpc-kit';
import type { RetrievalServiceService } from '@engram/proto/engram/retrieval/v1/retrieval';
import { loadContext } from '../domain/context-bundle.ts';
import { handoffMemories } from '../domain/handoff.ts';
import { hybridQueryMemories, type QueryDeps } from '../domain/query-memories.ts';
import { toRankedProto } from './memory-results.ts';

/** Hybrid query, handoff and the context bundle. */
export function contextHandlers(
  deps: QueryDeps,
): Partial<HandlersOf<typeof RetrievalServiceService, Principal>> {
  return {
    async hybridQuery(req, { principal }) {
      const rows = await hybridQueryMemories(deps, principal, req);
      return { memories: rows.map(toRankedProto), next_cursor: '' };
    },
    async handoff(req, { principal }) {
      const rows = await handoffMemories(deps, principal, req);
      return {
        source_agent_id: req.source_agent_id,
        target_agent_id: req.target_agent_id,
        task_context: req.task_context,
        memories: rows.map(toRankedProto),
      };
    },
    async loadContext(req, { principal }) {
      const bundle = await loadContext(deps, principal, req);
      return {
        agent_id: bundle.agentId,
        query: req.query,
        token_budget: req.token_budget,
        tokens_used: bundle.tokensUsed,
        items: bundle.items.map(toRankedProto),
        integrity_all_verified: bundle.allVerified,
      };
    },
  };
}
