import type { Scope } from './scopes.ts';

/**
 * The nine memory types. The first five are the older kinds, the last four the typed kinds of
 * release 1.9.0; both sets coexist. "strategy" is the specification's reusable-patterns type.
 */
export const MEMORY_TYPES = [
  'standard',
  'strategy',
  'reflection',
  'progress',
  'feature',
  'episodic',
  'semantic',
  'procedural',
  'control',
] as const;

export type MemoryType = (typeof MEMORY_TYPES)[number];

/** The scope a memory gets when the request names none (before the trust ceiling is applied). */
export const DEFAULT_SCOPE_BY_TYPE: Readonly<Record<MemoryType, Scope>> = Object.freeze({
  standard: 'agent-private',
  strategy: 'global',
  reflection: 'global',
  progress: 'agent-private',
  feature: 'global',
  episodic: 'agent-private',
  semantic: 'global',
  procedural: 'global',
  control: 'global',
});

export function isMemoryType(value: unknown): value is MemoryType {
  return typeof value === 'string' && (MEMORY_TYPES as readonly string[]).includes(value);
}
