import { actingAgent, readerOf, type Principal } from '@engram/auth';
import { InvalidArgumentError, type FieldViolation } from '@engram/errors';
import { isMemoryType } from '@engram/memory-model';
import type { StoredMemory } from './memory.ts';
import type { ExportFilter, MemoryRepository } from './ports.ts';
import { ID_MAX_LENGTH, validateId } from '@engram/security-rules';

export const EXPORT_PAGE_SIZE = 500;

export interface ExportRequest {
  readonly agent_id: string;
  readonly namespace: string;
  readonly memory_types: readonly string[];
  readonly include_deprecated: boolean;
}

function validate(req: ExportRequest): FieldViolation[] {
  const v: FieldViolation[] = [];
  if (req.agent_id !== '') v.push(...validateId('agent_id', req.agent_id, ID_MAX_LENGTH));
  if (req.namespace !== '') v.push(...validateId('namespace', req.namespace, ID_MAX_LENGTH));
  req.memory_types.forEach((t, i) => {
    if (!isMemoryType(t))
      v.push({ field: `memory_types[${i}]`, description: 'unknown memory type', reason: 'INVALID_VALUE' });
  });
  return v;
}

/**
 * POST /memories/export: every memory the caller may read (visibility in SQL), page by page in id
 * order (keyset, EXPORT_PAGE_SIZE rows at a time), so memory stays constant whatever the size of
 * the store. Stops between pages once `signal` is aborted (the client went away). Nothing is
 * dropped here: the caller marks each row with its integrity_status.
 */
export async function* exportMemories(
  repo: MemoryRepository,
  principal: Principal,
  req: ExportRequest,
  signal: AbortSignal,
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<StoredMemory[]> {
  const violations = validate(req);
  if (violations.length > 0) throw new InvalidArgumentError('request failed validation', violations);
  const reader = readerOf(principal, actingAgent(principal, req.agent_id));
  const filter: ExportFilter = {
    namespace: req.namespace === '' ? undefined : req.namespace,
    memoryTypes: req.memory_types,
    includeDeprecated: req.include_deprecated,
  };
  let after: string | undefined;
  while (!signal.aborted) {
    const page = await repo.exportPage(reader, filter, after, pageSize);
    if (page.length > 0) yield page;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.id;
  }
}
