// The data-access library: the one place outside memory-store that reads memories, votes and
// provenance (docs/architecture.md, Where each rule lives). Services call these; they hold no SQL
// on those tables (an ESLint rule in eslint.config.js keeps it so).
export { toProtoMemory } from './memory-mapping.ts';
export { writeResultFromProto, writeResultToProto } from './write-result-mapping.ts';
export {
  deprecationFromProto,
  deprecationToProto,
  draftFromProto,
  draftToProto,
  provenanceFromProto,
  provenanceToProto,
} from './draft-mapping.ts';
export type { ProvenanceDefaults } from './draft-mapping.ts';
export { MEMORY_COLUMNS, memoryColumns, memoryFromRow } from './memory-row.ts';
export type { MemoryRow } from './memory-row.ts';
export { whereSearchable, whereVisible } from './visibility.ts';
export { VerifiedReader } from './verified-reader.ts';
export type { ReadContext } from './verified-reader.ts';
export { countVotes, EFFECTIVENESS_SQL, loadEffectiveness } from './effectiveness.ts';
export type { Effectiveness } from './effectiveness.ts';
export { upsertVote } from './votes.ts';
export type { Ballot } from './votes.ts';
export { deepestProvenance, provenanceDepths } from './provenance.ts';
export {
  byEffectiveness,
  CREATED_AT_ISO_SQL,
  flaggedMemories,
  hasMemoriesTable,
  memoryInProject,
  similarPairs,
  visibleByIds,
  visibleIds,
} from './lookup.ts';
export type { ListPosition, SimilarPair } from './lookup.ts';
export { applyFilters } from './search/filters.ts';
export type { MemorySearch } from './search/filters.ts';
export { efSearch, HNSW_EF_SEARCH_MIN, nearestMemories, nearestQuery } from './search/vector.ts';
export type { SearchHit } from './search/vector.ts';
export {
  FULL_LIST_DF,
  lexicalSearch,
  lexicalSearchRounds,
  PER_TERM_CANDIDATES,
  PER_TERM_GROWTH,
  PRUNED_ROUNDS,
  visibilityParts,
} from './search/lexical.ts';
export type { LexicalOptions, LexicalResult } from './search/lexical.ts';
export { playbookCandidates } from './search/playbook.ts';
export type { PlaybookHit, PlaybookSearch } from './search/playbook.ts';
