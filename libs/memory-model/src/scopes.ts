/**
 * Memory scopes, narrowest first: agent-private (the author only), agent-shared (the author and the
 * agents in shared_with), global (every agent of the project).
 */
export const SCOPES = ['agent-private', 'agent-shared', 'global'] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/**
 * How many readers a scope admits, as a rank: 0 for agent-private up to 2 for global; undefined for
 * a string that is no scope. Narrowing a memory's scope means lowering it.
 */
export function scopeWidth(scope: string): number | undefined {
  const i = (SCOPES as readonly string[]).indexOf(scope);
  return i < 0 ? undefined : i;
}
