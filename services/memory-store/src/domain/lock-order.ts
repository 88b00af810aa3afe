import type { Draft } from './memory.ts';

/** The columns of the deduplication index (memories_dedup: one live row per key). */
export interface DedupKey {
  readonly projectId: string;
  readonly namespace: string;
  readonly agentId: string;
  readonly scope: string;
  readonly memoryType: string;
  readonly contentKey: string;
}

/** The deduplication key of a draft stored under `contentKey` in a project. */
export function dedupKey(projectId: string, d: Draft, contentKey: string): DedupKey {
  return {
    projectId,
    namespace: d.namespace,
    agentId: d.agent_id,
    scope: d.scope,
    memoryType: d.memory_type,
    contentKey,
  };
}

const FIELDS = ['projectId', 'namespace', 'agentId', 'scope', 'memoryType', 'contentKey'] as const;

function compareKeys(a: DedupKey, b: DedupKey): number {
  for (const f of FIELDS) {
    if (a[f] < b[f]) return -1;
    if (a[f] > b[f]) return 1;
  }
  return 0;
}

/**
 * The indexes of `keys` in the order their rows are inserted: by deduplication key, equal keys in
 * caller order (so the first of two identical items is the one created). An insert holds its key
 * until commit, and a concurrent insert of the same key waits for that commit; when every writer
 * inserts in one order, no two can wait on each other in a cycle, which is what PostgreSQL aborted
 * with "deadlock detected" when batches of overlapping content arrived in different orders.
 */
export function dedupLockOrder(keys: readonly DedupKey[]): number[] {
  return keys.map((_, i) => i).sort((a, b) => compareKeys(keys[a]!, keys[b]!) || a - b);
}
