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

export function isMemoryType(value: unknown): value is MemoryType {
  return typeof value === 'string' && (MEMORY_TYPES as readonly string[]).includes(value);
}
