/**
 * Content trust labels, lowest first. untrusted and unknown content can never reach global scope.
 * (Principal trust, the level of an API key, has four levels and lives with authorization; "unknown"
 * exists only as a content label.)
 */
export const TRUST_LEVELS = ['untrusted', 'unknown', 'internal', 'privileged', 'system'] as const;

export type TrustLevel = (typeof TRUST_LEVELS)[number];

export function isTrustLevel(value: unknown): value is TrustLevel {
  return typeof value === 'string' && (TRUST_LEVELS as readonly string[]).includes(value);
}
