import type { Principal } from '@engram/auth';
import type { Embedder } from '@engram/embeddings';
import { uuidv7 } from '@engram/events';
import { canonicalJson, signProvenance, signV2 } from '@engram/integrity';
import { contentKey } from './content-key.ts';
import { deprecateInSession, type DeprecationRequest } from './deprecate.ts';
import type { Draft, PersistResult, ProvenanceRecord } from './memory.ts';
import type { MemoryRepository, WriteSession } from './ports.ts';

export interface PersistDeps {
  readonly repo: MemoryRepository;
  readonly embedder: Embedder;
  readonly integrityKey: string;
}

/** The canonical form of a provenance record that its signature covers. */
export function provenanceCanonical(memoryId: string, projectId: string, p: ProvenanceRecord): string {
  return canonicalJson({ memory_id: memoryId, project_id: projectId, ...p });
}

/**
 * Stores screened drafts in one transaction: deduplicate, sign (v2), insert memory + provenance and
 * the audit event. Embeddings are computed before the transaction opens, so it stays short.
 */
export async function persistMemories(
  deps: PersistDeps,
  principal: Principal,
  drafts: readonly Draft[],
  deprecations: readonly (DeprecationRequest & { agent_id: string })[] = [],
): Promise<{ results: PersistResult[]; deprecatedIds: string[] }> {
  const vectors = drafts.length > 0 ? await deps.embedder.embed(drafts.map((d) => d.content)) : [];
  return deps.repo.transaction(async (session) => {
    const results: PersistResult[] = [];
    for (const [i, draft] of drafts.entries()) {
      results.push(await persistOne(deps, session, principal, draft, vectors[i] ?? []));
    }
    const deprecatedIds: string[] = [];
    for (const d of deprecations) {
      deprecatedIds.push((await deprecateInSession(session, principal, d.agent_id, d, 'persist')).id);
    }
    return { results, deprecatedIds };
  });
}

async function persistOne(
  deps: PersistDeps,
  session: WriteSession,
  principal: Principal,
  draft: Draft,
  embedding: number[],
): Promise<PersistResult> {
  const projectId = principal.projectId;
  const key = contentKey(draft.content);
  const result = (id: string, deduplicated: boolean): PersistResult => ({
    id,
    deduplicated,
    scope: draft.scope,
    content_flags: draft.content_flags,
    trust_level: draft.trust_level,
    memory_type: draft.memory_type,
    namespace: draft.namespace,
  });
  for (let attempt = 0; attempt < 2; attempt++) {
    const existing = await session.findDuplicate(projectId, draft, key);
    if (existing) {
      await session.appendEvent({
        eventType: 'DEDUPLICATED',
        projectId,
        agentId: draft.agent_id,
        memoryId: existing.id,
        apiKeyId: principal.keyId,
        details: {
          channel: draft.provenance.channel,
          kind: draft.provenance.kind,
          memory_type: draft.memory_type,
        },
      });
      return { ...result(existing.id, true), content_flags: existing.content_flags };
    }
    const id = uuidv7();
    const integrityHash = signV2(deps.integrityKey, {
      project_id: projectId,
      agent_id: draft.agent_id,
      scope: draft.scope,
      trust_level: draft.trust_level,
      content: draft.content,
    });
    const provenanceSignature = signProvenance(
      deps.integrityKey,
      provenanceCanonical(id, projectId, draft.provenance),
    );
    const inserted = await session.insert({
      id,
      projectId,
      draft,
      key,
      integrityHash,
      provenanceSignature,
      embedding,
    });
    if (inserted) {
      await session.appendEvent({
        eventType: 'MEMORY_CREATED',
        projectId,
        agentId: draft.agent_id,
        memoryId: id,
        apiKeyId: principal.keyId,
        details: {
          memory_type: draft.memory_type,
          scope: draft.scope,
          trust_level: draft.trust_level,
          channel: draft.provenance.channel,
          kind: draft.provenance.kind,
          content_flags: draft.content_flags,
          policy_version: draft.provenance.policy_version,
        },
      });
      return result(id, false);
    }
    // A concurrent write stored the same content first: loop once more to return it as a duplicate.
  }
  throw new Error('deduplication race did not settle');
}
