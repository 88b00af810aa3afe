import type { Logger } from '@engram/logger';
import { errorSummary } from './error-summary.ts';
import { PublisherUnavailableError } from './errors.ts';
import { DEFAULT_DUPLICATE_WINDOW_MS, type EventPublisher } from './event-publisher.ts';
import { checkSubjectPattern, subjectMatches } from './subject-pattern.ts';

export interface BusMessage {
  readonly subject: string;
  /** A copy per handler: a handler may not change what the next one sees. */
  readonly data: Uint8Array;
  readonly msgId: string;
}

export type BusHandler = (msg: BusMessage) => void | Promise<void>;

export interface InProcessBusOptions {
  readonly logger: Logger;
  readonly duplicateWindowMs?: number;
  /** Clock in milliseconds (tests). */
  readonly now?: () => number;
}

interface Subscription {
  readonly pattern: string;
  readonly handler: BusHandler;
}

/**
 * The event bus of embedded mode, in place of NATS. publish() awaits each matching handler in
 * subscription order; a handler's error (thrown or rejected) is logged and never reaches the
 * publisher (the relay), so one failing subscriber cannot stall the outbox. Handlers must not block
 * for long: the relay waits for them. Like JetStream, a msgId seen within the duplicate window is
 * dropped. Nothing is persisted: delivery is at most once per process lifetime, the outbox in
 * Postgres is the durable record.
 */
export class InProcessBus implements EventPublisher {
  private readonly subs = new Set<Subscription>();
  /** msgId -> time first seen; insertion order is time order, so expiry pops from the front. */
  private readonly seen = new Map<string, number>();
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly log: Logger;
  private closed = false;

  constructor(opts: InProcessBusOptions) {
    this.windowMs = opts.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
    this.now = opts.now ?? Date.now;
    this.log = opts.logger.child({ component: 'in-process-bus' });
  }

  /** Registers a handler for a subject pattern (`*`, `>` as in NATS); returns the unsubscribe. */
  subscribe(pattern: string, handler: BusHandler): () => void {
    checkSubjectPattern(pattern);
    const sub: Subscription = { pattern, handler };
    this.subs.add(sub);
    return () => {
      this.subs.delete(sub);
    };
  }

  async publish(subject: string, payload: Uint8Array, msgId: string): Promise<void> {
    if (this.closed) throw new PublisherUnavailableError('the in-process bus is closed');
    const now = this.now();
    this.expire(now);
    if (this.seen.has(msgId)) {
      this.log.debug({ msg_id: msgId, subject }, 'duplicate message dropped');
      return;
    }
    this.seen.set(msgId, now);
    for (const sub of [...this.subs]) {
      if (!subjectMatches(sub.pattern, subject)) continue;
      try {
        await sub.handler({ subject, data: payload.slice(), msgId });
      } catch (err) {
        this.log.error(
          { msg_id: msgId, subject, pattern: sub.pattern, err: errorSummary(err) },
          'event handler failed',
        );
      }
    }
  }

  isConnected(): boolean {
    return !this.closed;
  }

  close(): Promise<void> {
    this.closed = true;
    this.subs.clear();
    this.seen.clear();
    return Promise.resolve();
  }

  private expire(now: number): void {
    for (const [id, at] of this.seen) {
      if (now - at < this.windowMs) break;
      this.seen.delete(id);
    }
  }
}
