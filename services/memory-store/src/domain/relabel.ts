import { contentRank, isPrivileged, principalRank, readerOf, type Principal } from '@engram/auth';
import {
  ConflictError,
  InvalidArgumentError,
  isUuid,
  NotFoundError,
  PermissionDeniedError,
  type FieldViolation,
} from '@engram/errors';
import { signV2, verifyMemory, type IntegrityStatus } from '@engram/integrity';
import {
  isLowTrust,
  isScope,
  isTrustLevel,
  scopeWidth,
  type Scope,
  type TrustLevel,
} from '@engram/memory-model';
import { ID_MAX_LENGTH, SHARED_WITH_MAX_ENTRIES, validateId } from '@engram/security-rules';
import type { StoredMemory } from './memory.ts';
import type { MemoryRepository, Relabel } from './ports.ts';

export interface RelabelRequest {
  readonly memory_id: string;
  readonly scope?: string | undefined;
  readonly trust_level?: string | undefined;
  /** A non-empty list replaces shared_with; with replaceSharedWith an empty one clears it. */
  readonly shared_with: readonly string[];
  readonly replace_shared_with: boolean;
}

export interface RelabelDeps {
  readonly repo: MemoryRepository;
  readonly integrityKey: string;
}

/** What the relabel transaction decided: the memory afterwards, or a refusal to record outside it. */
type RelabelOutcome =
  | { readonly memory: StoredMemory }
  | { readonly refused: Exclude<IntegrityStatus, 'valid'>; readonly author: string };

function validate(req: RelabelRequest): FieldViolation[] {
  const v: FieldViolation[] = [];
  if (req.scope !== undefined && !isScope(req.scope))
    v.push({
      field: 'scope',
      description: 'must be agent-private, agent-shared or global',
      reason: 'INVALID_VALUE',
    });
  if (req.trust_level !== undefined && !isTrustLevel(req.trust_level))
    v.push({
      field: 'trust_level',
      description: 'must be untrusted, unknown, internal, privileged or system',
      reason: 'INVALID_VALUE',
    });
  if (req.shared_with.length > SHARED_WITH_MAX_ENTRIES)
    v.push({
      field: 'shared_with',
      description: `at most ${SHARED_WITH_MAX_ENTRIES} agents`,
      reason: 'TOO_LONG',
    });
  req.shared_with.forEach((a, i) => v.push(...validateId(`shared_with[${i}]`, a, ID_MAX_LENGTH)));
  return v;
}

/** The label the request asks for, on top of the memory's current one. */
function targetLabel(
  m: StoredMemory,
  req: RelabelRequest,
): { scope: Scope; trust: TrustLevel; shared: string[] } {
  const scope = (req.scope ?? m.scope) as Scope;
  const trust = (req.trust_level ?? m.trust_level) as TrustLevel;
  const replace = req.replace_shared_with || req.shared_with.length > 0;
  let shared = replace ? [...new Set(req.shared_with)] : [...m.shared_with];
  if (scope !== 'agent-shared') shared = [];
  return { scope, trust, shared };
}

/**
 * Owners (any principal below privileged) may only narrow their own memory: a lower scope, or fewer
 * agents in shared_with. Everything else is for privileged and system keys.
 */
function checkOwnerNarrowing(m: StoredMemory, t: { scope: Scope; trust: TrustLevel; shared: string[] }) {
  if (t.trust !== m.trust_level)
    throw new PermissionDeniedError('only a privileged key may relabel trust_level', 'TRUST_FORBIDDEN');
  const from = scopeWidth(m.scope) ?? 0;
  const to = scopeWidth(t.scope) ?? 0;
  const widensShares =
    m.scope === 'agent-shared' &&
    t.scope === 'agent-shared' &&
    t.shared.some((a) => !m.shared_with.includes(a));
  if (to > from || widensShares)
    throw new PermissionDeniedError('an owner may only narrow the scope of its memory', 'SCOPE_FORBIDDEN');
}

/**
 * PATCH /memories/{id}: relabels scope, trust_level and shared_with in one transaction, re-signs the
 * memory (v2) and records SCOPE_CHANGED / TRUST_CHANGED with the old and new values. The content
 * ceiling holds as on writes: untrusted or unknown content never becomes global, and a trust label
 * never exceeds the principal's. Provenance is not touched.
 *
 * The current row is verified first, whatever INTEGRITY_READ_MODE and INTEGRITY_REQUIRE_SIGNED say:
 * only a row whose signature verifies is re-signed. A tampered row, or an unsigned one (readable as
 * `unsigned` without INTEGRITY_REQUIRE_SIGNED, but nobody vouched for its content), is refused with
 * 409 INTEGRITY_FAILED and the refusal is recorded as INTEGRITY_FAILED (route relabel); re-signing
 * either would bless content nobody signed. backfill-integrity is the one tool that signs unsigned
 * rows, deliberately.
 */
export async function relabelMemory(
  deps: RelabelDeps,
  principal: Principal,
  agentId: string,
  req: RelabelRequest,
): Promise<StoredMemory> {
  const violations = validate(req);
  if (violations.length > 0) throw new InvalidArgumentError('request failed validation', violations);
  if (!isUuid(req.memory_id)) throw new NotFoundError('memory not found');
  const id = req.memory_id.toLowerCase();
  const reader = readerOf(principal, agentId);
  const outcome = await deps.repo.transaction(async (s): Promise<RelabelOutcome> => {
    const m = await s.lockVisible(reader, id);
    if (!m) throw new NotFoundError('memory not found');
    const privileged = isPrivileged(principal);
    if (!privileged && m.agent_id !== agentId)
      throw new PermissionDeniedError(
        'only the author or a privileged key may relabel this memory',
        'SCOPE_FORBIDDEN',
      );
    // Before anything else, the no-op answer included: that answer shows the row.
    const status = verifyMemory(deps.integrityKey, m.integrity_hash, m);
    if (status !== 'valid') return { refused: status, author: m.agent_id };
    const t = targetLabel(m, req);
    if (t.scope === m.scope && t.trust === m.trust_level && sameSet(t.shared, m.shared_with))
      return { memory: m };
    if (!privileged) checkOwnerNarrowing(m, t);
    if (t.trust !== m.trust_level && contentRank(t.trust) > principalRank(principal.trust))
      throw new PermissionDeniedError(
        'trust_level may not exceed the trust of the API key',
        'TRUST_FORBIDDEN',
      );
    if (t.scope === 'global' && isLowTrust(t.trust))
      throw new PermissionDeniedError('untrusted or unknown content can never be global', 'SCOPE_FORBIDDEN');
    const label: Relabel = {
      scope: t.scope,
      trust_level: t.trust,
      shared_with: t.shared,
      integrity_hash: signV2(deps.integrityKey, { ...m, scope: t.scope, trust_level: t.trust }),
    };
    const after = await s.relabel(id, label);
    const base = { projectId: principal.projectId, agentId, memoryId: id, apiKeyId: principal.keyId };
    if (t.scope !== m.scope || !sameSet(t.shared, m.shared_with)) {
      await s.appendEvent({
        ...base,
        eventType: 'SCOPE_CHANGED',
        details: {
          old_scope: m.scope,
          new_scope: t.scope,
          old_shared_with: m.shared_with,
          new_shared_with: t.shared,
          author_agent_id: m.agent_id,
        },
      });
    }
    if (t.trust !== m.trust_level) {
      await s.appendEvent({
        ...base,
        eventType: 'TRUST_CHANGED',
        details: { old_trust_level: m.trust_level, new_trust_level: t.trust, author_agent_id: m.agent_id },
      });
    }
    return { memory: after };
  });
  if ('memory' in outcome) return outcome.memory;
  // Recorded on its own: the refusal is the audit trail of someone trying to relabel such a row.
  await deps.repo.recordEvent({
    eventType: 'INTEGRITY_FAILED',
    projectId: principal.projectId,
    agentId,
    memoryId: id,
    apiKeyId: principal.keyId,
    details: {
      route: 'relabel',
      status: outcome.refused,
      action: 'refused',
      author_agent_id: outcome.author,
    },
  });
  throw new ConflictError(
    outcome.refused === 'unsigned'
      ? 'this memory is unsigned and cannot be relabelled: sign it with backfill-integrity first'
      : 'this memory fails integrity verification and cannot be relabelled',
    'INTEGRITY_FAILED',
    'FAILED_PRECONDITION',
  );
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}
