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
import type { StoredMemory } from '@engram/memory-model';
import { METRICS, type EngramMetrics } from '@engram/telemetry';

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
 * transaction, even when the read itself ran on a replica. With `metrics`, each failure is also
 * counted in engram_integrity_failures_total by read path and status.
 */
export class VerifiedReader {
  private readonly failures;

  constructor(
    private readonly guard: ReadGuardOptions,
    private readonly primary: Knex,
    private readonly onCommit: () => void = () => {},
    metrics?: EngramMetrics,
  ) {
    this.failures = metrics?.counter(METRICS.integrityFailures);
  }

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
    await this.record(failed, ctx);
    return kept;
  }

  /**
   * True when verification is on and the row carries a signature that verifies. An unsigned row is
   * not verified, even where INTEGRITY_REQUIRE_SIGNED=false lets reads return it.
   */
  verifies(row: StoredMemory): boolean {
    return this.guard.mode !== 'off' && verifyMemory(this.guard.key, row.integrity_hash, row) === 'valid';
  }

  /**
   * For decisions that act on what rows say (consolidation keeps one memory and deprecates another):
   * only rows whose signature verifies are trusted, whatever INTEGRITY_READ_MODE says, and never an
   * unsigned row (nobody vouched for its content). Rows a read would fail (edited; unsigned under
   * INTEGRITY_REQUIRE_SIGNED) are recorded as INTEGRITY_FAILED exactly like on read.
   */
  async trusted<T extends StoredMemory>(
    rows: readonly T[],
    ctx: ReadContext,
  ): Promise<{ trusted: T[]; untrusted: { row: T; status: IntegrityStatus }[] }> {
    const trusted: T[] = [];
    const untrusted: { row: T; status: IntegrityStatus }[] = [];
    for (const row of rows) {
      const status = verifyMemory(this.guard.key, row.integrity_hash, row);
      if (status === 'valid') trusted.push(row);
      else untrusted.push({ row, status });
    }
    await this.record(
      untrusted.filter((u) => u.status === 'invalid' || this.guard.requireSigned),
      ctx,
    );
    return { trusted, untrusted };
  }

  /** INTEGRITY_FAILED for each failed row, on the primary in one transaction, and the failure counter. */
  private async record(
    failed: readonly { row: StoredMemory; status: IntegrityStatus }[],
    ctx: ReadContext,
  ): Promise<void> {
    for (const { status } of failed) this.failures?.inc({ route: ctx.route, status });
    if (failed.length === 0) return;
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
}
