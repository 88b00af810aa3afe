/**
 * Group commit: concurrent writes that each need one statement of their own are run as one
 * statement of several rows. Nothing waits for a timer: the first write of a quiet moment runs at
 * once, alone; writes that arrive while `maxInFlight` groups are running queue, and when a group
 * ends, everything queued (up to `maxSize`) goes out as the next group. So a lone client sees no
 * added latency and a busy store pays the statement, trigger and commit once per group instead of
 * once per write.
 */
export interface WriteGroupOptions {
  /** Groups running at once: 1 on a single-connection store (PGlite), a few on a pool. */
  readonly maxInFlight: number;
  /** The most writes in one group (bounds the statement's size and its lock footprint). */
  readonly maxSize: number;
  /** Called with the size of each group that runs (a metric). */
  readonly onGroup?: (size: number) => void;
  /**
   * Whether a group's failure says the store is unavailable (down, unreachable, too slow): then the
   * group and every write queued behind it fail with that error at once, as each would alone, rather
   * than waiting out the outage again, one write or group after another. Any other failure may be
   * one write's own (a constraint one row breaks), so the group's writes are written again one at a
   * time. Default: never.
   */
  readonly unavailable?: (err: unknown) => boolean;
}

interface Waiting<I, R> {
  readonly item: I;
  readonly resolve: (result: R) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * `run` writes a group and answers one result per item, in the group's order, or throws for the
 * whole group; `alone` writes one item by itself. A group of several that fails is written again
 * one item at a time, so a write fails only for a reason of its own, never because another write
 * shared its statement; unless the store is unavailable (`unavailable`), when the group and the
 * queue behind it fail with the store's error, so no write waits longer for an answer than one
 * statement's bound.
 */
export class WriteGroup<I, R> {
  private readonly queue: Waiting<I, R>[] = [];
  private inFlight = 0;

  constructor(
    private readonly run: (items: readonly I[]) => Promise<readonly R[]>,
    private readonly alone: (item: I) => Promise<R>,
    private readonly opts: WriteGroupOptions,
  ) {
    if (!(opts.maxInFlight >= 1) || !(opts.maxSize >= 1))
      throw new Error('WriteGroup: maxInFlight >= 1 and maxSize >= 1');
  }

  write(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.opts.maxInFlight && this.queue.length > 0) {
      const group = this.queue.splice(0, this.opts.maxSize);
      this.inFlight++;
      void this.flush(group).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async flush(group: readonly Waiting<I, R>[]): Promise<void> {
    this.opts.onGroup?.(group.length);
    let results: readonly R[];
    try {
      results =
        group.length === 1 ? [await this.alone(group[0]!.item)] : await this.run(group.map((w) => w.item));
    } catch (err) {
      if (this.opts.unavailable?.(err) === true) {
        // The store is down: what is queued would wait for the same outage, then fail with it.
        for (const w of [...group, ...this.queue.splice(0)]) w.reject(err);
      } else if (group.length === 1) {
        group[0]!.reject(err);
      } else {
        // One at a time: each write gets its own outcome (the group's error may be one item's own),
        // and the rewrites hold the group's one place among the maxInFlight statements rather than
        // a connection each (a group of 64 would otherwise take the whole pool).
        for (const w of group) await this.alone(w.item).then(w.resolve, w.reject);
      }
      return;
    }
    if (results.length !== group.length) {
      const err = new Error(`a write group of ${group.length} answered ${results.length} results`);
      for (const w of group) w.reject(err);
      return;
    }
    group.forEach((w, i) => w.resolve(results[i]!));
  }
}
