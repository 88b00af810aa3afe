import type { Principal } from '@engram/auth';
import type { Embedder } from '@engram/embeddings';
import { ConflictError } from '@engram/errors';
import { uuidv7, type NewAuditEvent } from '@engram/events';
import { canonicalJson, signProvenance, signV2 } from '@engram/integrity';
import { contentKey } from './content-key.ts';
import { deprecateInSession, type DeprecationRequest } from './deprecate.ts';
import { dedupKey, dedupLockOrder } from './lock-order.ts';
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
  const prepared = drafts.map((d, i) => prepare(deps, principal, d, vectors[i] ?? []));
  // The common case, one new memory: one statement, no transaction (a duplicate takes the full path,
  // whose own insert attempt then finds the conflict again and records DEDUPLICATED).
  const only = prepared[0];
  if (prepared.length === 1 && deprecations.length === 0 && only) {
    if (await deps.repo.insertAlone(only.insert, only.created)) {
      return { results: [only.result(only.insert.id, false)], deprecatedIds: [] };
    }
  }
  // Rows are inserted in deduplication-key order (one lock order for every writer: no deadlock between
  // batches of overlapping content); the answer keeps the caller's order.
  const order = dedupLockOrder(prepared.map(({ insert: i }) => dedupKey(i.projectId, i.draft, i.key)));
  return deps.repo.transaction(async (session) => {
    const stored = new Map<number, PersistResult>();
    for (const i of order) stored.set(i, await persistOne(session, principal, prepared[i]!));
    const results = prepared.map((_, i) => stored.get(i)!);
    const deprecatedIds: string[] = [];
    for (const d of deprecations) {
      deprecatedIds.push((await deprecateInSession(session, principal, d.agent_id, d, 'persist')).id);
    }
    return { results, deprecatedIds };
  });
}

interface Prepared {
  readonly draft: Draft;
  readonly insert: Parameters<WriteSession['insert']>[0];
  readonly created: NewAuditEvent;
  result(id: string, deduplicated: boolean): PersistResult;
}

/** Id, signatures and MEMORY_CREATED event of a draft: everything computed before the database. */
function prepare(deps: PersistDeps, principal: Principal, draft: Draft, embedding: number[]): Prepared {
  const projectId = principal.projectId;
  const id = uuidv7();
  return {
    draft,
    insert: {
      id,
      projectId,
      draft,
      key: contentKey(draft.content),
      integrityHash: signV2(deps.integrityKey, {
        project_id: projectId,
        agent_id: draft.agent_id,
        scope: draft.scope,
        trust_level: draft.trust_level,
        content: draft.content,
      }),
      provenanceSignature: signProvenance(
        deps.integrityKey,
        provenanceCanonical(id, projectId, draft.provenance),
      ),
      embedding,
    },
    created: {
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
    },
    result: (resultId, deduplicated) => ({
      id: resultId,
      deduplicated,
      scope: draft.scope,
      content_flags: draft.content_flags,
      trust_level: draft.trust_level,
      memory_type: draft.memory_type,
      namespace: draft.namespace,
    }),
  };
}

/**
 * Inside a transaction: a new row (one statement), or, when a live duplicate holds the content, that
 * duplicate with a DEDUPLICATED event (its first provenance kept).
 */
async function persistOne(session: WriteSession, principal: Principal, p: Prepared): Promise<PersistResult> {
  const { draft, insert } = p;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await session.insert(insert, p.created)) return p.result(insert.id, false);
    const existing = await session.findDuplicate(insert.projectId, draft, insert.key);
    if (existing) {
      await session.appendEvent({
        eventType: 'DEDUPLICATED',
        projectId: insert.projectId,
        agentId: draft.agent_id,
        memoryId: existing.id,
        apiKeyId: principal.keyId,
        details: {
          channel: draft.provenance.channel,
          kind: draft.provenance.kind,
          memory_type: draft.memory_type,
        },
      });
      return { ...p.result(existing.id, true), content_flags: existing.content_flags };
    }
    // The conflicting row was deprecated or deleted meanwhile: try the insert once more.
  }
  // Twice in a row a duplicate blocked the insert and was gone before it could be returned: a client
  // error to retry (409), not a server fault.
  throw new ConflictError(
    'the same content was written and retired concurrently; retry the write',
    'DEDUPLICATION_RACE',
  );
}
