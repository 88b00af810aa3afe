import { mayActAs, type Principal } from '@engram/auth';
import type { RateLimitSubject } from './rate-limit/rate-limiter.ts';

/** Request fields that name the acting agent, in order of preference. */
const AGENT_FIELDS = ['agent_id', 'voter_agent_id', 'source_agent_id'] as const;

/**
 * Whom a request is counted against (docs/architecture.md, Authorization): the project, and the acting agent: the
 * bound agent, else the agent the request names if the key may act for it (mayActAs; a key naming
 * another agent is refused anyway, and must not spend that agent's budget), else the key itself. No
 * key is exempt.
 */
export function rateLimitSubject(principal: Principal, request: unknown): RateLimitSubject {
  if (principal.boundAgentId !== undefined) {
    return { projectId: principal.projectId, agent: principal.boundAgentId };
  }
  if (typeof request === 'object' && request !== null) {
    const fields = request as Record<string, unknown>;
    for (const f of AGENT_FIELDS) {
      const v = fields[f];
      if (typeof v === 'string' && v !== '' && mayActAs(principal, v))
        return { projectId: principal.projectId, agent: v };
    }
  }
  return { projectId: principal.projectId, agent: `key:${principal.keyId}` };
}
