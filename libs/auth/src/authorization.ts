import { NotFoundError, PermissionDeniedError } from '@engram/errors';
import { scopeWidth, type Scope } from '@engram/memory-model';
import { actingAgent, mayActAs } from './acting-agent.ts';
import { isPrivileged, isSystem, type Principal } from './principal.ts';
import type { Reader } from './reader.ts';

/**
 * The rules of docs/architecture.md (Authorization) as functions, one per column of the principal table:
 *
 * | principal  | read (canRead)                 | write scopes (canWriteScope)                         | delete / relabel (canModify, canRelabel) | /security/*, /admin (canAdmin) |
 * |------------|--------------------------------|------------------------------------------------------|------------------------------------------|--------------------------------|
 * | untrusted  | global + own + shared with it  | agent-private (content forced to untrusted)          | own                                      | no                             |
 * | internal   | global + own + shared with it  | agent-private, agent-shared; global unless ENABLE_TRUST_LEVELS | own; may narrow own scope      | no                             |
 * | privileged | everything in the project      | all                                                  | all; relabel scope and trust             | security                       |
 * | system     | everything in the project      | all                                                  | all                                      | security and admin             |
 *
 * Whom a key acts for (the agent a request names) is acting-agent.ts's mayActAs: a bound key its
 * agent; an untrusted key is always bound; an unbound internal key the agents it lists, or any agent
 * when created with any_agent; privileged and system keys any agent unless bound.
 *
 * The project is the isolation boundary of every rule: nothing here ever grants access across
 * projects. Read paths apply canRead in SQL (whereVisible of @engram/memories); these predicates
 * serve single-row checks, and an invisible memory is always reported as missing (404), never as
 * forbidden.
 */

/** The fields of a memory that authorization looks at. */
export interface MemoryAccessFacts {
  readonly projectId: string;
  readonly agentId: string;
  readonly scope: string;
  readonly sharedWith: readonly string[];
}

/** Visibility of a memory to a reader: same project, and privileged, global, own, or shared with it. */
export function canRead(reader: Reader, memory: MemoryAccessFacts): boolean {
  if (memory.projectId !== reader.projectId) return false;
  if (reader.seesAll) return true;
  return (
    memory.scope === 'global' ||
    memory.agentId === reader.agentId ||
    (memory.scope === 'agent-shared' && memory.sharedWith.includes(reader.agentId))
  );
}

/** Principal floor of a write: may this principal write a memory of this scope at all? */
export function canWriteScope(principal: Principal, scope: Scope, enableTrustLevels: boolean): boolean {
  switch (principal.trust) {
    case 'untrusted':
      return scope === 'agent-private';
    case 'internal':
      return scope !== 'global' || !enableTrustLevels;
    default:
      return true;
  }
}

/** Delete, deprecate (and relabel, see canRelabel): the author, or any privileged/system key of the project. */
export function canModify(principal: Principal, agentId: string, memory: MemoryAccessFacts): boolean {
  if (memory.projectId !== principal.projectId) return false;
  return isPrivileged(principal) || memory.agentId === agentId;
}

/** What a relabel asks for; absent fields stay as they are. */
export interface RelabelChange {
  readonly scope?: string | undefined;
  readonly trustLevel?: string | undefined;
  readonly sharedWith?: readonly string[] | undefined;
}

/**
 * Relabel: privileged and system relabel scope and trust of anything in the project; the author (any
 * trust) may only narrow its own memory's scope (global > agent-shared > agent-private, or remove
 * agents from shared_with) and never changes its trust label.
 */
export function canRelabel(
  principal: Principal,
  agentId: string,
  memory: MemoryAccessFacts,
  change: RelabelChange,
): boolean {
  if (memory.projectId !== principal.projectId) return false;
  if (isPrivileged(principal)) return true;
  if (memory.agentId !== agentId) return false;
  if (change.trustLevel !== undefined && change.trustLevel !== '') return false;
  if (change.scope !== undefined && change.scope !== '') {
    const to = scopeWidth(change.scope);
    const from = scopeWidth(memory.scope);
    if (to === undefined || from === undefined || to > from) return false;
  }
  if (change.sharedWith !== undefined) {
    const now = new Set(memory.sharedWith);
    if (change.sharedWith.some((a) => !now.has(a))) return false;
  }
  return true;
}

/** /security/* needs privileged or system; /admin needs system. */
export type AdminArea = 'security' | 'admin';

export function canAdmin(principal: Principal, area: AdminArea): boolean {
  return area === 'security' ? isPrivileged(principal) : isSystem(principal);
}

/** Throws 403 ADMIN_REQUIRED unless canAdmin; /admin also confines a non-instance key to its project. */
export function requireAdmin(principal: Principal, area: AdminArea, projectId?: string): void {
  if (!canAdmin(principal, area)) {
    throw new PermissionDeniedError(
      area === 'security' ? 'a privileged or system API key is required' : 'a system API key is required',
      'ADMIN_REQUIRED',
    );
  }
  if (
    area === 'admin' &&
    projectId !== undefined &&
    projectId !== '' &&
    projectId !== principal.projectId &&
    !principal.instanceAdmin
  ) {
    throw new PermissionDeniedError('a system key administers only its own project', 'ADMIN_REQUIRED');
  }
}

/**
 * The single-row gate of delete / deprecate / relabel: a memory the acting agent cannot read (or that
 * does not exist, or lives in another project) is 404; one it can read but not modify is 403
 * SCOPE_FORBIDDEN. `memory` is the row as read, unfiltered, inside the project; pass undefined when
 * there is none.
 */
export function requireModify(
  reader: Reader,
  principal: Principal,
  memory: MemoryAccessFacts | undefined,
  change?: RelabelChange,
): void {
  if (memory === undefined || !canRead(reader, memory)) throw new NotFoundError('memory not found');
  const allowed =
    change === undefined
      ? canModify(principal, reader.agentId, memory)
      : canRelabel(principal, reader.agentId, memory, change);
  if (!allowed) {
    throw new PermissionDeniedError(
      change === undefined
        ? 'only the author or a privileged key may change this memory'
        : 'only a privileged key may widen a scope or change a trust label; the author may only narrow',
      'SCOPE_FORBIDDEN',
    );
  }
}

/**
 * The two agents of a handoff. The key must be able to act as the source or the target (mayActAs:
 * a bound key is one of them, a listing key lists one of them; else 403 AGENT_MISMATCH). What is
 * handed over is what the target may read.
 */
export function handoffAgents(
  principal: Principal,
  sourceAgentId: string,
  targetAgentId: string,
): { source: string; target: string } {
  const source = sourceAgentId === '' ? actingAgent(principal, undefined) : sourceAgentId;
  const target = targetAgentId === '' ? actingAgent(principal, undefined) : targetAgentId;
  if (!mayActAs(principal, source) && !mayActAs(principal, target)) {
    throw new PermissionDeniedError(
      principal.boundAgentId !== undefined
        ? 'the agent this API key is bound to is neither the source nor the target of the handoff'
        : 'this API key may act for neither the source nor the target of the handoff',
      'AGENT_MISMATCH',
    );
  }
  return { source, target };
}
