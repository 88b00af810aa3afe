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
