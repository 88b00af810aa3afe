import type { Caller, Reader } from '@engram/auth';
import type { Effectiveness, ReadContext, SimilarPair } from '@engram/memories';
export type { SimilarPair };
import type { EngramError } from '@engram/errors';
import type { Deprecation, StoredMemory, WriteRequest } from '@engram/memory-model';
import type { Feature, NewFeature } from './feature-status.ts';
import type { ProgressSession } from './progress-session.ts';
import type { NewRun, Run, RunCompletion } from './run-status.ts';
import type { VoteValue } from './vote-value.ts';

/** Who acts: the project, the acting agent and the API key (recorded with every change). */
export interface Actor {
  readonly projectId: string;
  readonly agentId: string;
  readonly apiKeyId: string;
}

export interface VoteInput {
  readonly memoryId: string;
  readonly voterAgentId: string;
  readonly taskId: string;
  readonly vote: VoteValue;
  readonly context: string;
}

/** memory_votes: one ballot per (memory, voter); a new vote replaces the voter's earlier one. */
export interface VoteRepository {
  /** Records the vote and its VOTED event in one transaction; the memory's counts afterwards. */
  cast(actor: Actor, vote: VoteInput): Promise<Effectiveness>;
}

/** Reads of memories (owned by memory-store) that the feedback loop needs; always inside visibility. */
export interface MemoryLookup {
  /** The ids among `ids` naming memories the reader may see (deprecated ones included). */
  visibleIds(reader: Reader, ids: readonly string[]): Promise<Set<string>>;
  /** The memories the reader may see, by id (live or deprecated). */
  byIds(reader: Reader, ids: readonly string[]): Promise<StoredMemory[]>;
  /** The deepest provenance depth among the memories, undefined when none has provenance. */
  deepestProvenance(projectId: string, ids: readonly string[]): Promise<number | undefined>;
  /**
   * Live voted memories of a namespace the reader may see whose effectiveness is strictly above
   * (or strictly below) the threshold, best (or worst) first; `limit` of them after skipping `offset`.
   */
  byEffectiveness(
    reader: Reader,
    namespace: string,
    threshold: number,
    side: 'above' | 'below',
    limit: number,
    offset: number,
  ): Promise<(StoredMemory & { effectiveness: number })[]>;
  /**
   * Pairs of live memories of a namespace, both visible to the reader, with cosine similarity at
   * least `minSimilarity`: each memory's nearest neighbours through the vector index (`neighbours`
   * per memory), never a scan of all pairs; the newest `maxMemories` memories are examined. Most
   * similar first.
   */
  similarPairs(
    reader: Reader,
    namespace: string,
    minSimilarity: number,
    opts: { neighbours: number; maxMemories: number },
  ): Promise<SimilarPair[]>;
  /** Effectiveness scores (0 when unvoted). */
  effectiveness(projectId: string, ids: readonly string[]): Promise<Map<string, Effectiveness>>;
}

/** Verify-on-read: rows whose signature fails are dropped (or flagged) and recorded. */
export interface ReadScreen {
  screen(
    rows: readonly StoredMemory[],
    ctx: ReadContext,
  ): Promise<(StoredMemory & { integrity_status?: string })[]>;
  /**
   * For decisions that act on rows (consolidation): only rows whose signature verifies, whatever the
   * read mode; unsigned rows are untrusted too. Failures are recorded as on read.
   */
  trusted<T extends StoredMemory>(
    rows: readonly T[],
    ctx: ReadContext,
  ): Promise<{ trusted: T[]; untrusted: { row: T; status: string }[] }>;
}

/** One item of the pipeline's answer: stored (id), or refused with the error a single write would get. */
export interface PipelineItem {
  readonly index: number;
  readonly id?: string;
  readonly deduplicated: boolean;
  readonly scope?: string;
  readonly content_flags: readonly string[];
  readonly error?: EngramError;
}

export interface PipelineAnswer {
  readonly results: readonly PipelineItem[];
  /** False when an atomic request was refused as a whole (see the items' errors). */
  readonly applied: boolean;
  readonly deprecated_ids: readonly string[];
}

/** What ace-feedback derives from a call; recorded as the provenance kind of what it writes. */
export type InternalWriteKind = 'delta' | 'reflection' | 'run_reflection' | 'consolidation';

/**
 * Writes and deprecations handed to the write pipeline together (ingest-security's IngestInternal
 * contract): screened as the caller's own writes; atomic: all stored, or none when any item fails.
 */
export interface InternalWrite {
  readonly items: readonly WriteRequest[];
  readonly kind: InternalWriteKind;
  /** The run a write derives from (a failed run's reflection). */
  readonly source_run_id?: string | undefined;
  /** 0 for a direct write; 1 + the deepest provenance depth of the memories it derives from. */
  readonly depth: number;
  readonly atomic: boolean;
  readonly deprecations: readonly Deprecation[];
}

/**
 * The one write pipeline (ingest-security's IngestInternal). `caller` is the original caller's
 * forwarded credentials, built by the handler: the pipeline authorizes each item as that caller's.
 */
export interface WritePipeline {
  ingest(req: InternalWrite, caller: Caller): Promise<PipelineAnswer>;
}

export interface RunRepository {
  /** Inserts a started run; false when the run_id exists in the project. */
  insert(actor: Actor, run: NewRun): Promise<boolean>;
  get(projectId: string, runId: string): Promise<Run | undefined>;
  /**
   * started -> completed in one transaction with the votes (voter = the run's agent, task_id =
   * run_id) and a RUN_COMPLETED event; a conditional update, so undefined (and nothing written)
   * when the run is no longer started.
   */
  complete(actor: Actor, completion: RunCompletion): Promise<Run | undefined>;
}

export interface SessionRepository {
  /** false when the session_id exists in the project. */
  insert(actor: Actor, session: ProgressSession): Promise<boolean>;
  get(projectId: string, sessionId: string): Promise<ProgressSession | undefined>;
  /** Applies `change` to the current state inside one transaction (row locked); undefined when missing. */
  update(
    projectId: string,
    sessionId: string,
    change: (current: ProgressSession) => ProgressSession,
  ): Promise<ProgressSession | undefined>;
}

export interface FeaturePage {
  readonly features: Feature[];
  readonly nextCursor: string;
}

/** Whose features a list shows: every agent's, or those of these owners. */
export type FeatureOwners = 'all' | { readonly agents: readonly string[] };

export interface FeatureRepository {
  /** false when the feature_id exists in the project. */
  insert(actor: Actor, feature: NewFeature): Promise<boolean>;
  get(projectId: string, featureId: string): Promise<Feature | undefined>;
  /**
   * Moves a feature from one of `from` to `to` with a conditional update (the transition rule is
   * checked again by the database); undefined when the feature was not in an allowed state.
   */
  transition(
    actor: Actor,
    featureId: string,
    from: readonly string[],
    to: Pick<Feature, 'status' | 'failureReason' | 'verifiedBy'>,
  ): Promise<Feature | undefined>;
  /** Features of `owners` by feature_id, after `afterId`, optionally of one status. */
  list(
    projectId: string,
    owners: FeatureOwners,
    status: string | undefined,
    afterId: string | undefined,
    limit: number,
  ): Promise<Feature[]>;
}

/** Audit events of consolidation (memories_consolidated), appended after the deprecations commit. */
export interface ConsolidationLog {
  record(
    actor: Actor,
    namespace: string,
    merges: readonly { keptId: string; deprecatedId: string; similarity: number }[],
  ): Promise<void>;
}
