import { actingAgent, type Principal } from '@engram/auth';
import { InvalidArgumentError } from '@engram/errors';
import { AUDIT_EVENT_TYPES } from '@engram/events';
import type { HandlersOf } from '@engram/grpc-kit';
import type { MemoryDraft, MemoryWriterServiceService } from '@engram/proto/engram/memory/v1/memory_store';
import type { Draft } from '../domain/memory.ts';
import { persistMemories, type PersistDeps } from '../domain/persist-memories.ts';

function draftOf(d: MemoryDraft, principal: Principal): Draft {
  const p = d.provenance;
  return {
    namespace: d.namespace,
    agent_id: d.agent_id,
    content: d.content,
    memory_type: d.memory_type,
    scope: d.scope,
    trust_level: d.trust_level,
    metadata: d.metadata ?? {},
    content_flags: d.content_flags,
    shared_with: d.shared_with,
    session_id: d.session_id ?? null,
    sequence_number: d.sequence_number ?? null,
    entity_id: d.entity_id ?? null,
    error_pattern: d.error_pattern ?? null,
    source_trajectory_id: d.source_trajectory_id ?? null,
    provenance: {
      channel: p?.channel || 'internal',
      kind: p?.kind || 'add',
      agent_id: p?.agent_id || d.agent_id,
      api_key_id: p?.api_key_id || principal.keyId,
      source_run_id: p?.source_run_id ?? null,
      interaction_id: p?.interaction_id ?? null,
      depth: p?.depth ?? 0,
      verdict: p?.verdict ?? {},
      taint: p?.taint ?? [],
      policy_version: p?.policy_version ?? '',
    },
  };
}

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
