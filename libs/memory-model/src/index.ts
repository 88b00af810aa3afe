export { effectiveness01, effectivenessScore, NEUTRAL_PRIOR, to01 } from './effectiveness.ts';
export type { VoteCounts } from './effectiveness.ts';
export type {
  Deprecation,
  MemoryDraft,
  ProvenanceRecord,
  WriteRequest,
  WriteResult,
} from './memory-writes.ts';
export { isMemoryType, MEMORY_TYPES } from './memory-types.ts';
export type { MemoryType } from './memory-types.ts';
export { isScope, SCOPES, scopeWidth } from './scopes.ts';
export type { Scope } from './scopes.ts';
export type { StoredMemory } from './stored-memory.ts';
export { isLowTrust, isTrustLevel, LOW_TRUST_LEVELS, TRUST_LEVELS } from './trust-levels.ts';
export type { TrustLevel } from './trust-levels.ts';
