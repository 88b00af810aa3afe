/**
 * Memory scopes: agent-private (the author only), agent-shared (the author and the agents in
 * shared_with), global (every agent of the project).
 */
export const SCOPES = ['agent-private', 'agent-shared', 'global'] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}
