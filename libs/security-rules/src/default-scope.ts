import type { MemoryType, Scope } from '@engram/memory-model';

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
