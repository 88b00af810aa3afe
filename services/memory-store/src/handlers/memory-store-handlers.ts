import { actingAgent, readerOf, type Principal } from '@engram/auth';
import { InvalidArgumentError, isUuid, NotFoundError, type FieldViolation } from '@engram/errors';
import type { HandlersOf } from '@engram/grpc-kit';
import { toProtoMemory, type VerifiedReader } from '@engram/memories';
import type { MemoryStoreServiceService } from '@engram/proto/engram/memory/v1/memory_store';
import {
  ENTITY_ID_MAX_LENGTH,
  ID_MAX_LENGTH,
  SESSION_ID_MAX_LENGTH,
  validateId,
} from '@engram/security-rules';
import { deleteMemory } from '../domain/delete-memory.ts';
import { deprecateInSession } from '../domain/deprecate.ts';
import { exportMemories } from '../domain/export-memories.ts';
import type { MemoryRepository } from '../domain/ports.ts';
import { relabelMemory } from '../domain/relabel.ts';
import { timelinePage, timelinePaging } from '../domain/timeline.ts';

export interface MemoryStoreHandlerDeps {
  readonly repo: MemoryRepository;
  readonly reader: VerifiedReader;
  readonly integrityKey: string;
}

function idViolations(fields: [string, string, number][]): FieldViolation[] {
  return fields.filter(([, v]) => v !== '').flatMap(([f, v, max]) => validateId(f, v, max));
}

function checkIds(fields: [string, string, number][]): void {
  const violations = idViolations(fields);
  if (violations.length > 0) throw new InvalidArgumentError('request failed validation', violations);
}

/** memory-store's public RPCs: reads (verified on read), export, relabel, deprecate, delete. */
export function memoryStoreHandlers(
  deps: MemoryStoreHandlerDeps,
): Partial<HandlersOf<typeof MemoryStoreServiceService, Principal>> {
  const ctxOf = (principal: Principal, agentId: string, route: string) => ({
    projectId: principal.projectId,
    agentId,
    apiKeyId: principal.keyId,
    route,
  });
  return {
    async getMemory(req, { principal }) {
      checkIds([['agent_id', req.agent_id, ID_MAX_LENGTH]]);
      const agent = actingAgent(principal, req.agent_id);
      // A malformed id cannot name a memory: the same 404 as an invisible or missing one.
      if (!isUuid(req.id)) throw new NotFoundError('memory not found');
      const row = await deps.repo.findVisible(readerOf(principal, agent), req.id.toLowerCase());
      const [kept] = row ? await deps.reader.screen([row], ctxOf(principal, agent, 'get')) : [];
      if (!kept) throw new NotFoundError('memory not found');
      return toProtoMemory(kept);
    },

    async deprecateMemory(req, { principal }) {
      checkIds([['agent_id', req.agent_id, ID_MAX_LENGTH]]);
      const agent = actingAgent(principal, req.agent_id);
      await deps.repo.transaction((s) =>
        deprecateInSession(
          s,
          principal,
          agent,
          { memory_id: req.id, superseded_by: req.superseded_by, reason: req.reason },
          'api',
        ),
      );
      const row = await deps.repo.findVisible(readerOf(principal, agent), req.id.toLowerCase());
      // The answer shows the memory, so it is verified like any read (the deprecation stands).
      const [kept] = row ? await deps.reader.screen([row], ctxOf(principal, agent, 'deprecate')) : [];
      if (!kept) throw new NotFoundError('memory not found');
      return toProtoMemory(kept);
    },

    async relabelMemory(req, { principal }) {
      checkIds([['agent_id', req.agent_id, ID_MAX_LENGTH]]);
      const agent = actingAgent(principal, req.agent_id);
      const after = await relabelMemory(deps, principal, agent, {
        memory_id: req.id,
        scope: req.scope,
        trust_level: req.trust_level,
        shared_with: req.shared_with,
        replace_shared_with: req.replace_shared_with,
      });
      return toProtoMemory(after);
    },

    async deleteMemory(req, { principal }) {
      checkIds([['agent_id', req.agent_id, ID_MAX_LENGTH]]);
      const agent = actingAgent(principal, req.agent_id);
      return { id: await deleteMemory(deps.repo, principal, agent, req.id), deleted: true };
    },

    async *exportMemories(req, { principal, signal }) {
      for await (const page of exportMemories(deps.repo, principal, req, signal)) {
        for (const row of deps.reader.annotate(page)) yield toProtoMemory(row);
      }
    },

    async getSessionTimeline(req, { principal }) {
      // The ids, page_size and cursor: every bad one named in one 400.
      const paging = timelinePaging(
        req,
        idViolations([
          ['session_id', req.session_id, SESSION_ID_MAX_LENGTH],
          ['agent_id', req.agent_id, ID_MAX_LENGTH],
          ['namespace', req.namespace, ID_MAX_LENGTH],
        ]),
      );
      const agent = actingAgent(principal, req.agent_id);
      const reader = readerOf(principal, agent);
      const page = await timelinePage(
        (after, limit) =>
          deps.repo.sessionTimeline(reader, req.namespace || undefined, req.session_id, after, limit),
        (rows) => deps.reader.screen(rows, ctxOf(principal, agent, 'session_timeline')),
        paging.after,
        paging.pageSize,
      );
      return { memories: page.memories.map(toProtoMemory), next_cursor: page.nextCursor };
    },

    async getEntityMemories(req, { principal }) {
      // The ids, page_size and cursor: every bad one named in one 400.
      const paging = timelinePaging(
        req,
        idViolations([
          ['entity_id', req.entity_id, ENTITY_ID_MAX_LENGTH],
          ['agent_id', req.agent_id, ID_MAX_LENGTH],
          ['namespace', req.namespace, ID_MAX_LENGTH],
        ]),
      );
      const agent = actingAgent(principal, req.agent_id);
      const reader = readerOf(principal, agent);
      const page = await timelinePage(
        (after, limit) =>
          deps.repo.entityMemories(reader, req.namespace || undefined, req.entity_id, after, limit),
        (rows) => deps.reader.screen(rows, ctxOf(principal, agent, 'entity')),
        paging.after,
        paging.pageSize,
      );
      return { memories: page.memories.map(toProtoMemory), next_cursor: page.nextCursor };
    },
  };
}
