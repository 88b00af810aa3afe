import type { Database } from '@engram/db';
import { AUDIT_EVENT_TYPES, appendEvent } from '@engram/events';
import type { Actor, ConsolidationLog } from '../domain/ports.ts';

/** memories_consolidated events, one per merge (memory_id = the deprecated memory), in one transaction. */
export class KnexConsolidationLog implements ConsolidationLog {
  constructor(
    private readonly db: Database,
    private readonly onCommit: () => void,
  ) {}

  async record(
    actor: Actor,
    namespace: string,
    merges: readonly { keptId: string; deprecatedId: string; similarity: number }[],
  ): Promise<void> {
    await this.db.knex.transaction(async (trx) => {
      for (const m of merges) {
        await appendEvent(trx, {
          eventType: AUDIT_EVENT_TYPES.MEMORIES_CONSOLIDATED,
          projectId: actor.projectId,
          agentId: actor.agentId,
          memoryId: m.deprecatedId,
          apiKeyId: actor.apiKeyId,
          details: { namespace, kept_id: m.keptId, deprecated_id: m.deprecatedId, similarity: m.similarity },
        });
      }
    });
    this.onCommit();
  }
}
