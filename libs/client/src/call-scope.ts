import { localError, type EngramError } from './errors.ts';

/**
 * The lifetime of one call: one AbortSignal for every fetch and wait of the call that fires when
 * the caller's signal aborts or when the call's time budget runs out, and the knowledge of which
 * of the two it was.
 */
export class CallScope {
  private readonly controller = new AbortController();
  private readonly deadline: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private why: 'aborted' | 'timeout' | undefined;
  private readonly onAbort = () => this.stop('aborted');

  constructor(
    private readonly timeoutMs: number,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    const bounded = timeoutMs > 0 && Number.isFinite(timeoutMs);
    this.deadline = bounded ? Date.now() + timeoutMs : Number.POSITIVE_INFINITY;
    if (callerSignal?.aborted) this.stop('aborted');
    else callerSignal?.addEventListener('abort', this.onAbort, { once: true });
    if (bounded && this.why === undefined) this.timer = setTimeout(() => this.stop('timeout'), timeoutMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Milliseconds left of the time budget (Infinity without one). */
  remainingMs(): number {
    return this.deadline - Date.now();
  }

  /** The error of a call that was aborted or ran out of time; undefined while it runs. */
  stoppedError(attempts: number, requestId: string | undefined): EngramError | undefined {
    if (this.why === 'aborted') {
      return localError('CANCELLED', 'the call was aborted', {
        attempts,
        requestId,
        cause: this.callerSignal?.reason,
      });
    }
    if (this.why === 'timeout') {
      return localError('DEADLINE_EXCEEDED', `no answer within ${this.timeoutMs} ms`, {
        attempts,
        requestId,
      });
    }
    return undefined;
  }

  /** Ends the time budget (a stream has started; only the caller's signal stops it now). */
  clearDeadline(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.clearDeadline();
    this.callerSignal?.removeEventListener('abort', this.onAbort);
  }

  private stop(why: 'aborted' | 'timeout'): void {
    if (this.why !== undefined) return;
    this.why = why;
    this.clearDeadline();
    this.controller.abort();
  }
}
