import { actingAgent, type Principal } from '@engram/auth';
import { InvalidArgumentError } from '@engram/errors';
import { AUDIT_EVENT_TYPES } from '@engram/events';
import type { HandlersOf } from '@engram/grpc-kit';
import { draftFromProto } from '@engram/memories';
import type { MemoryDraft, MemoryWriterServiceService } from '@engram/proto/engram/memory/v1/memory_store';
import type { Draft } from '../domain/memory.ts';
import { persistMemories, type PersistDeps } from '../domain/persist-memories.ts';

/** A draft as sent; one without provenance (a direct call) is attributed to the calling key. */
const draftOf = (d: MemoryDraft, principal: Principal): Draft =>
  draftFromProto(d, { api_key_id: principal.keyId });

/**
 * Internal writes (MemoryWriterService): only callers holding the internal token reach these, with
 * the original caller's key, after ingest-security screened and decided every draft.
 */
export function writerHandlers(
  deps: PersistDeps,
): Partial<HandlersOf<typeof MemoryWriterServiceService, Principal>> {
  return {
    async persistMemories(req, { principal }) {
      // Each deprecation acts as its own agent_id, else as the agent of the request's first draft,
      // else as the key's own identity (actingAgent refuses a bound key naming another agent).
      const fallback = req.drafts[0]?.agent_id;
      const { results, deprecatedIds } = await persistMemories(
        deps,
        principal,
        req.drafts.map((d) => draftOf(d, principal)),
        req.deprecations.map((d) => ({
          ...d,
          agent_id: actingAgent(principal, d.agent_id || fallback),
        })),
      );
      return { results, deprecated_ids: deprecatedIds };
    },
    async recordAuditEvent(req, { principal }) {
      if (!(Object.values(AUDIT_EVENT_TYPES) as string[]).includes(req.event_type)) {
        throw new InvalidArgumentError('unknown audit event type', [
          { field: 'event_type', description: 'must be a known audit event type', reason: 'INVALID_VALUE' },
        ]);
      }
      const eventId = await deps.repo.recordEvent({
        eventType: req.event_type,
        projectId: principal.projectId,
        agentId: req.agent_id || null,
        memoryId: req.memory_id ?? null,
        apiKeyId: principal.keyId,
        details: req.details ?? {},
      });
      return { event_id: eventId };
    },
  };
}
