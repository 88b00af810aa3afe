import { isPrivileged, readerOf, type Principal } from '@engram/auth';
import { isUuid, NotFoundError, PermissionDeniedError } from '@engram/errors';
import type { MemoryRepository } from './ports.ts';

/**
 * DELETE /memories/{id}: a hard delete by the author or a privileged key. The row and its provenance
 * are gone; the audit log keeps a MEMORY_DELETED tombstone that describes the memory without its
 * content. An invisible memory is reported like a missing one.
 */
export async function deleteMemory(
  repo: MemoryRepository,
  principal: Principal,
  agentId: string,
  memoryId: string,
): Promise<string> {
  if (!isUuid(memoryId)) throw new NotFoundError('memory not found');
  const id = memoryId.toLowerCase();
  await repo.transaction(async (s) => {
    const m = await s.lockVisible(readerOf(principal, agentId), id);
    if (!m) throw new NotFoundError('memory not found');
    if (!isPrivileged(principal) && m.agent_id !== agentId)
      throw new PermissionDeniedError(
        'only the author or a privileged key may delete this memory',
        'SCOPE_FORBIDDEN',
      );
    if (!(await s.delete(id))) throw new NotFoundError('memory not found');
    await s.appendEvent({
      eventType: 'MEMORY_DELETED',
      projectId: principal.projectId,
      agentId,
      memoryId: id,
      apiKeyId: principal.keyId,
      details: {
        author_agent_id: m.agent_id,
        namespace: m.namespace,
        memory_type: m.memory_type,
        scope: m.scope,
        trust_level: m.trust_level,
        was_deprecated: m.is_deprecated,
        created_at: m.created_at.toISOString(),
      },
    });
  });
  return id;
}
