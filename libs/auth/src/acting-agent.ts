import { PermissionDeniedError } from '@engram/errors';
import type { Principal } from './principal.ts';

/**
 * The agent a request acts as. A bound key acts only as its agent: any agent-naming field that
 * differs is refused with AGENT_MISMATCH. An unbound key acts as the agent the request names, and
 * with none named as the key itself (`key:<key_id>`), which owns nothing and sees only what is global.
 */
export function actingAgent(principal: Principal, requested: string | undefined, field = 'agent_id'): string {
  const named = requested === undefined || requested === '' ? undefined : requested;
  if (principal.boundAgentId !== undefined) {
    if (named !== undefined && named !== principal.boundAgentId) {
      throw new PermissionDeniedError(
        `${field} differs from the agent this API key is bound to`,
        'AGENT_MISMATCH',
      );
    }
    return principal.boundAgentId;
  }
  return named ?? `key:${principal.keyId}`;
}

/** Checks another agent-naming field (voter_agent_id, run agents, ...) of a bound key's request. */
export function assertAgentAllowed(principal: Principal, agentId: string | undefined, field: string): void {
  actingAgent(principal, agentId, field);
}
