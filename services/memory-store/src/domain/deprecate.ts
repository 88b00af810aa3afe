import { isPrivileged, readerOf, type Principal } from '@engram/auth';
import { InvalidArgumentError, isUuid, NotFoundError, PermissionDeniedError } from '@engram/errors';
import type { StoredMemory } from './memory.ts';
import type { WriteSession } from './ports.ts';

export interface DeprecationRequest {
  readonly memory_id: string;
  readonly superseded_by?: string | undefined;
  readonly reason: string;
}

export const DEPRECATION_REASON_MAX_LENGTH = 2000;

/** C0 controls other than tab, newline and carriage return, and DEL. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) return true;
  }
  return false;
}

/**
 * Deprecates one memory inside a write session: the acting agent must see it and own it, unless the
 * key is privileged or system; superseded_by, when given, must name another memory it can see. An
 * invisible memory is reported exactly like a missing one. The signature is untouched (deprecation
 * changes no signed field) and an already deprecated memory is reported as missing.
 */
export async function deprecateInSession(
  session: WriteSession,
  principal: Principal,
  agentId: string,
  req: DeprecationRequest,
  source: string,
): Promise<StoredMemory> {
  if ([...req.reason].length > DEPRECATION_REASON_MAX_LENGTH || hasControlCharacter(req.reason)) {
    throw new InvalidArgumentError('request failed validation', [
      {
        field: 'reason',
        description: `at most ${DEPRECATION_REASON_MAX_LENGTH} characters, no control characters`,
        reason: 'INVALID_VALUE',
      },
    ]);
  }
  const superseded =
    req.superseded_by === undefined || req.superseded_by === '' ? null : req.superseded_by.toLowerCase();
  if (!isUuid(req.memory_id)) throw new NotFoundError('memory not found');
  const reader = readerOf(principal, agentId);
  if (
    superseded !== null &&
    (!isUuid(superseded) ||
      superseded === req.memory_id.toLowerCase() ||
      !(await session.isVisible(reader, superseded)))
  ) {
    throw new InvalidArgumentError('request failed validation', [
      {
        field: 'superseded_by',
        description: 'must name another memory visible to the caller',
        reason: 'INVALID_VALUE',
      },
    ]);
  }
  const before = await session.deprecate(
    reader,
    !isPrivileged(principal),
    req.memory_id.toLowerCase(),
    superseded,
    req.reason,
  );
  if (!before) {
    // Distinguish "not yours" from "not there" only for memories the caller can read.
    if (!isPrivileged(principal) && (await session.isVisible(reader, req.memory_id.toLowerCase()))) {
      throw new PermissionDeniedError(
        'only the author or a privileged key may deprecate this memory',
        'SCOPE_FORBIDDEN',
      );
    }
    throw new NotFoundError('memory not found');
  }
  await session.appendEvent({
    eventType: 'MEMORY_DEPRECATED',
    projectId: principal.projectId,
    agentId,
    memoryId: before.id,
    apiKeyId: principal.keyId,
    details: { superseded_by: superseded, source },
  });
  return before;
}
