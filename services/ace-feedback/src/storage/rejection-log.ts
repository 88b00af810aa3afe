import type { Database } from '@engram/db';
import { AUDIT_EVENT_TYPES, appendEvent } from '@engram/events';
import type { RejectionLog } from '../domain/free-text-screen.ts';
import type { Actor } from '../domain/ports.ts';

/** SECURITY_REJECTED events of refused free text, each in its own transaction (nothing else is written). */
export class KnexRejectionLog implements RejectionLog {
  constructor(
    private readonly db: Database,
    private readonly onCommit: () => void,
  ) {}

  async record(actor: Actor, details: Record<string, unknown>): Promise<void> {
    await appendEvent(this.db.knex, {
      eventType: AUDIT_EVENT_TYPES.SECURITY_REJECTED,
      projectId: actor.projectId,
      agentId: actor.agentId,
      apiKeyId: actor.apiKeyId,
      details,
    });
    this.onCommit();
  }
}
