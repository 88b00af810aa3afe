/**
 * Content trust labels, lowest first. Principal trust (the level of an API key) is a different
 * thing with four levels and lives with authorization (libs/auth); "unknown" exists only as a
 * content label.
 */
export const TRUST_LEVELS = ['untrusted', 'unknown', 'internal', 'privileged', 'system'] as const;

export type TrustLevel = (typeof TRUST_LEVELS)[number];

export function isTrustLevel(value: unknown): value is TrustLevel {
  return typeof value === 'string' && (TRUST_LEVELS as readonly string[]).includes(value);
}

/**
 * The labels of content from outside or of unknown origin: it never reaches global scope, and
 * screening treats it as data, never as instructions.
 */
export const LOW_TRUST_LEVELS = ['untrusted', 'unknown'] as const satisfies readonly TrustLevel[];

export function isLowTrust(value: unknown): boolean {
  return typeof value === 'string' && (LOW_TRUST_LEVELS as readonly string[]).includes(value);
}
