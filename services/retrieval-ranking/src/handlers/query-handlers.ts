import type { Principal } from '@engram/auth';
import { InvalidArgumentError } from '@engram/errors';
import type { HandlersOf } from '@engram/grpc-kit';
import type { RetrievalServiceService } from '@engram/proto/engram/retrieval/v1/retrieval';
import { queryMemories, type QueryDeps } from '../domain/query-memories.ts';
import { toRankedProto } from './memory-results.ts';

const TYPED_KINDS = ['episodic', 'semantic', 'procedural', 'control'];

/** Semantic and typed queries. */
export function queryHandlers(
  deps: QueryDeps,
): Partial<HandlersOf<typeof RetrievalServiceService, Principal>> {
  return {
    async query(req, { principal }) {
      const rows = await queryMemories(deps, principal, req, 'query');
      return { memories: rows.map(toRankedProto), next_cursor: '' };
    },
    async typedQuery(req, { principal }) {
      const types = req.memory_types.length === 0 ? TYPED_KINDS : req.memory_types;
      const bad = types.findIndex((t) => !TYPED_KINDS.includes(t));
      if (bad >= 0) {
        throw new InvalidArgumentError('request failed validation', [
          {
            field: `memory_types[${bad}]`,
            description: `typed query searches ${TYPED_KINDS.join(', ')}`,
            reason: 'INVALID_VALUE',
          },
        ]);
      }
      const rows = await queryMemories(deps, principal, { ...req, memory_types: types }, 'typed_query');
      return { memories: rows.map(toRankedProto), next_cursor: '' };
    },
  };
}
