// The write vocabulary is shared with ingest-security (which drafts) and declared once, in
// @engram/memory-model; memory-store's domain keeps its own names for it.
export type { ProvenanceRecord, StoredMemory } from '@engram/memory-model';
export type { MemoryDraft as Draft, WriteResult as PersistResult } from '@engram/memory-model';
