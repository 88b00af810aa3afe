/**
 * A caller tried to append an audit event that breaks the rules of the audit log (bad type, empty
 * project, forbidden or oversized details). A programming error, not client input: it surfaces as
 * INTERNAL if it ever reaches a handler.
 */
export class InvalidAuditEventError extends Error {
  override readonly name = 'InvalidAuditEventError';
  constructor(
    message: string,
    /** The offending field, e.g. `details.content` or `event_type`. */
    readonly field: string,
  ) {
    super(message);
  }
}

/**
 * The publisher cannot publish right now (not connected, closed, timed out, stream missing). The
 * outbox relay treats it as "retry later"; the event stays in the outbox.
 */
export class PublisherUnavailableError extends Error {
  override readonly name = 'PublisherUnavailableError';
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts?.cause === undefined ? undefined : { cause: opts.cause });
  }
}

/**
 * The broker refused this one event for good (larger than the stream accepts, a subject it will not
 * take): publishing it again cannot succeed while the broker itself works. The outbox relay counts
 * such a refusal toward the event's dead letter at once and goes on with the events after it.
 */
export class EventRejectedError extends Error {
  override readonly name = 'EventRejectedError';
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts?.cause === undefined ? undefined : { cause: opts.cause });
  }
}
