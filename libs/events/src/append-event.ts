import type { Knex } from 'knex';
import { rememberMessageOrigin } from '@engram/telemetry';
import type { AuditEventPayload, AuditEventRecord, NewAuditEvent } from './audit-event.ts';
import { checkAuditDetails } from './details-guard.ts';
import { InvalidAuditEventError } from './errors.ts';
import { AUDIT_EVENT_TYPE_PATTERN } from './event-types.ts';
import { auditEventFromRow, type AuditEventRow } from './audit-event-row.ts';
import { uuidv7 } from './uuidv7.ts';

const MAX_ID_LENGTH = 512;

/**
 * Appends an audit event to the outbox. Pass the transaction of the change the event describes, so
 * both commit or roll back together; after the commit, call `relay.notify()` to publish at once.
 * Throws InvalidAuditEventError on a malformed event or forbidden details (see checkAuditDetails).
 */
export async function appendEvent(
  trxOrKnex: Knex | Knex.Transaction,
  event: NewAuditEvent,
): Promise<AuditEventRecord> {
  const rows = (await trxOrKnex('audit_events')
    .insert(auditEventRow(event))
    .returning('*')) as AuditEventRow[];
  const row = rows[0];
  if (!row) throw new Error('insert into audit_events returned no row');
  return auditEventFromRow(row);
}

/** The columns of a new audit_events row, with a fresh event id; details as JSON text (checkAuditDetails). */
export type AuditEventInsert = Omit<AuditEventPayload, 'details' | 'created_at'> & {
  readonly details: string;
};

/**
 * Validates an event and returns the row to insert, for callers that fold the insert into a larger
 * statement (one round trip for a change and its event). Throws InvalidAuditEventError like appendEvent.
 */
export function auditEventRow(event: NewAuditEvent): AuditEventInsert {
  if (!AUDIT_EVENT_TYPE_PATTERN.test(event.eventType)) {
    throw new InvalidAuditEventError(
      'event type must match ' + String(AUDIT_EVENT_TYPE_PATTERN),
      'event_type',
    );
  }
  checkId(event.projectId, 'project_id', true);
  checkId(event.agentId, 'agent_id', false);
  checkId(event.memoryId, 'memory_id', false);
  checkId(event.apiKeyId, 'api_key_id', false);
  const eventId = uuidv7();
  // The relay publishes later, from its own loop: this lets that publish join the current trace.
  rememberMessageOrigin(eventId);
  return {
    event_id: eventId,
    event_type: event.eventType,
    project_id: event.projectId,
    agent_id: event.agentId ?? null,
    memory_id: event.memoryId ?? null,
    api_key_id: event.apiKeyId ?? null,
    details: checkAuditDetails(event.details ?? {}),
  };
}

function checkId(value: string | null | undefined, field: string, required: boolean): void {
  if (value === undefined || value === null) {
    if (required) throw new InvalidAuditEventError(`${field} is required`, field);
    return;
  }
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) {
    throw new InvalidAuditEventError(
      `${field} must be a non-empty string of at most ${MAX_ID_LENGTH}`,
      field,
    );
  }
}
