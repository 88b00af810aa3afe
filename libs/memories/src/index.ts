export { toProtoMemory } from './memory-mapping.ts';
export { writeResultFromProto, writeResultToProto } from './write-result-mapping.ts';
export { MEMORY_COLUMNS, memoryFromRow } from './memory-row.ts';
export type { MemoryRow } from './memory-row.ts';
export { VerifiedReader } from './verified-reader.ts';
export type { ReadContext } from './verified-reader.ts';
export { EFFECTIVENESS_SQL, loadEffectiveness } from './effectiveness.ts';
export type { Effectiveness } from './effectiveness.ts';
