/** A message id seen within this window is dropped (JetStream's duplicate window; the in-process bus's). */
export const DEFAULT_DUPLICATE_WINDOW_MS = 2 * 60 * 1000;

/**
 * Where the outbox relay sends events: NATS JetStream (distributed mode) or the in-process bus
 * (embedded mode). Implementations de-duplicate by msgId within a window, so a redelivery of the same
 * event (the relay published, then failed to record it) is stored or delivered once.
 */
export interface EventPublisher {
  /**
   * Resolves once the event is durably accepted (JetStream ack) or delivered (in-process). Rejects
   * (PublisherUnavailableError) rather than hanging when the broker is unreachable.
   */
  publish(subject: string, payload: Uint8Array, msgId: string): Promise<void>;
  /** Live state for the health map. */
  isConnected(): boolean;
  /** Flushes what is in flight, then releases the connection. */
  close(): Promise<void>;
}
