import type { Knex } from 'knex';
import { appendEvent } from '@engram/events';
import {
  formatOf,
  screenRows,
  verifyMemory,
  type IntegrityFormat,
  type IntegrityStatus,
  type ReadGuardOptions,
} from '@engram/integrity';
import type { StoredMemory } from './stored-memory.ts';

export interface ReadContext {
  readonly projectId: string;
  readonly agentId: string;
  readonly apiKeyId: string;
  /** The read path, e.g. query, get, session_timeline (recorded in the event). */
  readonly route: string;
}

/**
 * Verify-on-read for every read path: rows whose signature fails are dropped (or flagged) per
 * INTEGRITY_READ_MODE, and each failure is recorded as INTEGRITY_FAILED on the primary in its own
 * transaction, even when the read itself ran on a replica.
 */
export class VerifiedReader {
  constructor(
    private readonly guard: ReadGuardOptions,
    private readonly primary: Knex,
    private readonly onCommit: () => void = () => {},
  ) {}

  get mode() {
    return this.guard.mode;
  }

  /**
   * Export and admin listings: every row is kept, each marked with its integrity_status (valid,
   * invalid, unsigned: what verification finds, whatever INTEGRITY_READ_MODE says) and format.
   */
  annotate<T extends StoredMemory>(
    rows: readonly T[],
  ): (T & { integrity_status: IntegrityStatus; integrity_format: IntegrityFormat })[] {
    return rows.map((row) => ({
      ...row,
      integrity_status: verifyMemory(this.guard.key, row.integrity_hash, row),
      integrity_format: formatOf(row.integrity_hash),
    }));
  }

  async screen(
    rows: readonly StoredMemory[],
    ctx: ReadContext,
  ): Promise<(StoredMemory & { integrity_status?: IntegrityStatus })[]> {
    const { kept, failed } = screenRows(rows, this.guard);
    if (failed.length > 0) {
      await this.primary.transaction(async (trx) => {
        for (const { row, status } of failed) {
          await appendEvent(trx, {
            eventType: 'INTEGRITY_FAILED',
            projectId: ctx.projectId,
            agentId: ctx.agentId,
            memoryId: row.id,
            apiKeyId: ctx.apiKeyId,
            details: { route: ctx.route, status, mode: this.guard.mode, author_agent_id: row.agent_id },
          });
        }
      });
      this.onCommit();
    }
    return kept;
  }
}
