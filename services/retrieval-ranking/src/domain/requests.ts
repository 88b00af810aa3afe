/**
 * The reads this service answers, in the domain's own terms. Field names follow the REST contract,
 * so a handler hands the decoded request over as it is; the domain never sees protobuf or gRPC.
 */

/** query, hybrid_query and typed query: what to look for, for whom, and how many. */
export interface QueryInput {
  readonly query: string;
  /** The reader. */
  readonly agent_id: string;
  readonly namespace?: string | undefined;
  readonly memory_types: readonly string[];
  readonly scopes: readonly string[];
  /** Authors to keep. */
  readonly agent_ids: readonly string[];
  readonly top_k?: number | undefined;
  readonly min_score?: number | undefined;
  readonly session_id?: string | undefined;
  readonly entity_id?: string | undefined;
  /** RFC 3339 reference time of the query's dates ("last May"); the server's clock when absent. */
  readonly as_of?: string | undefined;
}

/** A handoff from one agent to another: what the target may read that fits the task. */
export interface HandoffInput {
  readonly source_agent_id: string;
  readonly target_agent_id: string;
  readonly task_context: string;
  readonly max_memories?: number | undefined;
  readonly namespace?: string | undefined;
}

/** A context bundle filled to a token budget. */
export interface ContextInput {
  readonly agent_id: string;
  readonly query: string;
  readonly token_budget: number;
  readonly namespace?: string | undefined;
  /** RFC 3339 reference time of the query's dates; the server's clock when absent. */
  readonly as_of?: string | undefined;
}
