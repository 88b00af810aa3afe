import { PermissionDeniedError } from '@engram/errors';
import { isPrivileged, type Principal } from './principal.ts';

/** The identity of a key that names no agent: it owns nothing and sees only what is global. */
export function keyIdentity(principal: Principal): string {
  return `key:${principal.keyId}`;
}

/**
 * May this key act as `agentId`? The one rule every agent-naming field goes through
 * (docs/decisions.md, "what an unbound key may do"):
 * - a bound key acts only as its agent;
 * - every key may act as its own identity `key:<key_id>`;
 * - an unbound privileged or system key acts for any agent of its project;
 * - an unbound internal key acts for the agents its key lists (agent_ids), or for any agent only
 *   when it was created with any_agent. A key with neither (a legacy unbound row) acts for none.
 * Untrusted keys are always bound (creating an unbound one is refused).
 */
export function mayActAs(principal: Principal, agentId: string): boolean {
  if (principal.boundAgentId !== undefined) return agentId === principal.boundAgentId;
  if (agentId === keyIdentity(principal)) return true;
  if (isPrivileged(principal) || principal.anyAgent === true) return true;
  return principal.agentIds?.includes(agentId) ?? false;
}

/** The refusal of an agent-naming field the key may not act as (403 AGENT_MISMATCH). */
function mismatch(principal: Principal, field: string): PermissionDeniedError {
  if (principal.boundAgentId !== undefined) {
    return new PermissionDeniedError(
      `${field} differs from the agent this API key is bound to`,
      'AGENT_MISMATCH',
    );
  }
  const listed = principal.agentIds ?? [];
  return new PermissionDeniedError(
    listed.length === 0
      ? `${field} names an agent this API key may not act for: it acts for no agent (create a key with bound_agent_id, agent_ids or any_agent)`
      : `${field} names an agent this API key may not act for (it acts for ${listed.join(', ')})`,
    'AGENT_MISMATCH',
  );
}

/**
 * The agent a request acts as: the agent it names, which the key must be allowed to act as
 * (mayActAs; else 403 AGENT_MISMATCH), and with none named the bound agent, else the key itself
 * (`key:<key_id>`).
 */
export function actingAgent(principal: Principal, requested: string | undefined, field = 'agent_id'): string {
  const named = requested === undefined || requested === '' ? undefined : requested;
  if (named === undefined) return principal.boundAgentId ?? keyIdentity(principal);
  if (!mayActAs(principal, named)) throw mismatch(principal, field);
  return named;
}

/** Checks another agent-naming field (voter_agent_id, run agents, ...) against the same rule. */
export function assertAgentAllowed(principal: Principal, agentId: string | undefined, field: string): void {
  actingAgent(principal, agentId, field);
}

/**
 * May this key see and change an object owned by `ownerAgentId` (a run, a feature, a progress
 * session)? A privileged or system key sees the whole project, bound or not; any other key only what
 * belongs to an agent it may act as. Callers answer 404 otherwise: existence is not revealed.
 */
export function mayAccessOwned(principal: Principal, ownerAgentId: string): boolean {
  return isPrivileged(principal) || mayActAs(principal, ownerAgentId);
}
