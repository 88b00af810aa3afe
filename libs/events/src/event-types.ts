/**
 * The audit event types known to the suite. Event types are plain strings (a new one needs no change
 * here), but each becomes the last token of a NATS subject, so it must match AUDIT_EVENT_TYPE_PATTERN.
 * The first five are the specification's security events; the rest are Engram's own.
 */
export const AUDIT_EVENT_TYPES = {
  SECURITY_REJECTED: 'SECURITY_REJECTED',
  INTEGRITY_FAILED: 'INTEGRITY_FAILED',
  SCOPE_CHANGED: 'SCOPE_CHANGED',
  TRUST_CHANGED: 'TRUST_CHANGED',
  DEDUPLICATED: 'DEDUPLICATED',
  MEMORIES_CONSOLIDATED: 'memories_consolidated',
  MEMORY_CREATED: 'MEMORY_CREATED',
  MEMORY_UPDATED: 'MEMORY_UPDATED',
  MEMORY_DEPRECATED: 'MEMORY_DEPRECATED',
  MEMORY_DELETED: 'MEMORY_DELETED',
  MEMORY_RELABELED: 'MEMORY_RELABELED',
  PROJECT_CREATED: 'PROJECT_CREATED',
  KEY_CREATED: 'KEY_CREATED',
  KEY_REVOKED: 'KEY_REVOKED',
  VOTED: 'VOTED',
  RUN_COMPLETED: 'RUN_COMPLETED',
  REFLECTION_RECORDED: 'REFLECTION_RECORDED',
  SECURITY_CONFIG_CHANGED: 'SECURITY_CONFIG_CHANGED',
  /** The relay gave up publishing an event (details.event_id); that event stays in the audit log. */
  EVENT_DEAD_LETTERED: 'EVENT_DEAD_LETTERED',
} as const;

export type KnownAuditEventType = (typeof AUDIT_EVENT_TYPES)[keyof typeof AUDIT_EVENT_TYPES];

/** A letter, then letters, digits or underscores; at most 64 characters (one subject token). */
export const AUDIT_EVENT_TYPE_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
