import type { Reader } from '@engram/auth';
import type { NewAuditEvent } from '@engram/events';
import type { Draft, StoredMemory } from './memory.ts';
import type { PositionedMemory, TimelinePosition } from './timeline.ts';

/** A unit of work: everything written through it commits or rolls back together. */
export interface WriteSession {
  /** The live duplicate of a draft, if any (same project, namespace, author, scope, type, content). */
  findDuplicate(projectId: string, draft: Draft, key: string): Promise<StoredMemory | undefined>;
  /**
   * Inserts memory + provenance + the `created` event (memoryId set); false when a live duplicate
   * exists (a concurrent write won the dedup race), and then nothing is written.
   */
  insert(
    input: {
      id: string;
      projectId: string;
      draft: Draft;
      key: string;
      integrityHash: string;
      provenanceSignature: string;
      embedding: number[];
    },
    created: NewAuditEvent,
  ): Promise<boolean>;
  /**
   * Marks a live memory deprecated (is_deprecated, superseded_by, deprecation_reason) if the reader
   * may see it (and, with ownerOnly, wrote it); returns the memory as it was, or undefined.
   */
  deprecate(
    reader: Reader,
    ownerOnly: boolean,
    memoryId: string,
    supersededBy: string | null,
    reason: string,
  ): Promise<StoredMemory | undefined>;
  /** True when the reader may see a live memory with this id. */
  isVisible(reader: Reader, memoryId: string): Promise<boolean>;
  /** A memory the reader may see (deprecated or not), locked until the session ends. */
  lockVisible(reader: Reader, memoryId: string): Promise<StoredMemory | undefined>;
  /**
   * Stores a new label and its new signature; throws ConflictError when the same content already
   * lives in the target scope (the deduplication index).
   */
  relabel(memoryId: string, label: Relabel): Promise<StoredMemory>;
  /** Deletes the memory (its provenance row goes with it); false when it was already gone. */
  delete(memoryId: string): Promise<boolean>;
  appendEvent(event: NewAuditEvent): Promise<void>;
}

/** The signed label of a memory after a relabel, with the signature over it. */
export interface Relabel {
  readonly scope: string;
  readonly trust_level: string;
  readonly shared_with: readonly string[];
  readonly integrity_hash: string;
}

/** What an export selects besides visibility. */
export interface ExportFilter {
  /** undefined: every namespace. */
  readonly namespace: string | undefined;
  readonly memoryTypes: readonly string[];
  readonly includeDeprecated: boolean;
}

export interface MemoryRepository {
  transaction<T>(work: (s: WriteSession) => Promise<T>): Promise<T>;
  /**
   * WriteSession.insert as a statement of its own (atomic, no surrounding transaction): the fast path
   * of a single write. False on a live duplicate; nothing is written then.
   */
  insertAlone(...args: Parameters<WriteSession['insert']>): Promise<boolean>;
  /** A memory the reader may see, or undefined (invisible and missing look the same). */
  findVisible(reader: Reader, id: string): Promise<StoredMemory | undefined>;
  /**
   * Live episodic memories of a session the reader may see, after `after` in timeline order
   * (sequence_number, missing ones last, then created_at, then id), at most `limit`.
   */
  sessionTimeline(
    reader: Reader,
    namespace: string | undefined,
    sessionId: string,
    after: TimelinePosition | undefined,
    limit: number,
  ): Promise<PositionedMemory[]>;
  /** Live semantic memories of an entity the reader may see, after `after` by (created_at, id), at most `limit`. */
  entityMemories(
    reader: Reader,
    namespace: string | undefined,
    entityId: string,
    after: TimelinePosition | undefined,
    limit: number,
  ): Promise<PositionedMemory[]>;
  /** The next page of an export: visible rows with id > afterId, by id. */
  exportPage(
    reader: Reader,
    filter: ExportFilter,
    afterId: string | undefined,
    limit: number,
  ): Promise<StoredMemory[]>;
  /** How many memories carry no hash, or a legacy v1 hash (all projects). */
  legacySignatureCounts(): Promise<{ unsigned: number; v1: number }>;
  /** Records an audit event on its own, committed even when the request fails afterwards; its id. */
  recordEvent(event: Parameters<WriteSession['appendEvent']>[0]): Promise<string>;
}
