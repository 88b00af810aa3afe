export { appendEvent, auditEventRow } from './append-event.ts';
export { parseAuditDetails } from './audit-event-row.ts';
export type { AuditEventRow } from './audit-event-row.ts';
export type { AuditEventInsert } from './append-event.ts';
export { decodeAuditPayload, encodeAuditPayload, toAuditPayload } from './audit-event.ts';
export type { AuditEventPayload, AuditEventRecord, NewAuditEvent } from './audit-event.ts';
export { checkAuditDetails, FORBIDDEN_DETAIL_KEYS, MAX_DETAILS_BYTES } from './details-guard.ts';
export { EventRejectedError, InvalidAuditEventError, PublisherUnavailableError } from './errors.ts';
export { DEFAULT_DUPLICATE_WINDOW_MS } from './event-publisher.ts';
export type { EventPublisher } from './event-publisher.ts';
export { AUDIT_EVENT_TYPE_PATTERN, AUDIT_EVENT_TYPES } from './event-types.ts';
export type { KnownAuditEventType } from './event-types.ts';
export { InProcessBus } from './in-process-bus.ts';
export type { BusHandler, BusMessage, InProcessBusOptions } from './in-process-bus.ts';
export { eventsMigrations } from './migrations.ts';
export { NatsJetStreamPublisher } from './nats-jetstream-publisher.ts';
export type { NatsJetStreamPublisherOptions } from './nats-jetstream-publisher.ts';
export { OUTBOX_COUNT_CAP, outboxBacklog } from './outbox-backlog.ts';
export type { OutboxBacklogSample } from './outbox-backlog.ts';
export { DEFAULT_MAX_FAILED_ATTEMPTS, OutboxRelay } from './outbox-relay.ts';
export type { OutboxRelayOptions, OutboxRelayStatus } from './outbox-relay.ts';
export { DEFAULT_STREAM_NAME, ensureStream } from './stream.ts';
export type { AuditStreamOptions } from './stream.ts';
export { subjectMatches } from './subject-pattern.ts';
export {
  auditSubject,
  auditSubjectFilter,
  decodeSubjectToken,
  DEFAULT_SUBJECT_PREFIX,
  encodeSubjectToken,
} from './subjects.ts';
export { uuidv7 } from './uuidv7.ts';
