import { InvalidArgumentError, parseTimestamp, type FieldViolation } from '@engram/errors';
import { AUDIT_EVENT_TYPE_PATTERN } from '@engram/events';
import { ID_MAX_LENGTH, validateId } from '@engram/security-rules';
import { decodeCursor, type Position } from './cursor.ts';
import { pageLimit } from './page-limit.ts';
import type { AuditFilter } from './ports.ts';

export interface AuditRequest {
  readonly event_type?: string | undefined;
  readonly agent_id?: string | undefined;
  readonly memory_id?: string | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly cursor: string;
  readonly limit?: number | undefined;
}

/** An RFC 3339 bound, checked against the calendar and handed to SQL in one UTC form. */
function timestamp(field: string, v: string | undefined, out: FieldViolation[]): string | undefined {
  if (v === undefined || v === '') return undefined;
  return parseTimestamp(field, v, out)?.toISOString();
}

const present = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/** Validates GET /security/audit's filters: a bad one is a 400 naming the field. */
export function auditQuery(
  projectId: string,
  req: AuditRequest,
): { filter: AuditFilter; after: Position | undefined; limit: number } {
  const v: FieldViolation[] = [];
  const eventType = present(req.event_type);
  if (eventType !== undefined && !AUDIT_EVENT_TYPE_PATTERN.test(eventType))
    v.push({ field: 'event_type', description: 'is not an event type', reason: 'INVALID_VALUE' });
  const agentId = present(req.agent_id);
  if (agentId !== undefined) v.push(...validateId('agent_id', agentId, ID_MAX_LENGTH));
  const memoryId = present(req.memory_id);
  if (memoryId !== undefined) v.push(...validateId('memory_id', memoryId, ID_MAX_LENGTH));
  const since = timestamp('since', req.since, v);
  const until = timestamp('until', req.until, v);
  const limit = pageLimit(req.limit, v);
  if (v.length > 0) throw new InvalidArgumentError('request failed validation', v);
  return {
    filter: { projectId, eventType, agentId, memoryId: memoryId?.toLowerCase(), since, until },
    after: decodeCursor(req.cursor),
    limit,
  };
}
