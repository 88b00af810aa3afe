/** What a writer passes to appendEvent. Ids are those of the principal and objects involved. */
export interface NewAuditEvent {
  /** One of AUDIT_EVENT_TYPES, or any string matching AUDIT_EVENT_TYPE_PATTERN. */
  readonly eventType: string;
  readonly projectId: string;
  readonly agentId?: string | null | undefined;
  readonly memoryId?: string | null | undefined;
  readonly apiKeyId?: string | null | undefined;
  /**
   * A small JSON object describing what happened: ids, counts, categories, hashes, old and new
   * values of labels. Never memory content, keys or secrets (see FORBIDDEN_DETAIL_KEYS).
   */
  readonly details?: Readonly<Record<string, unknown>> | undefined;
}

/** One row of the audit log / outbox, as the rest of the code base sees it. */
export interface AuditEventRecord {
  /** UUIDv7, also the JetStream message id (Nats-Msg-Id). */
  readonly eventId: string;
  readonly eventType: string;
  readonly projectId: string;
  readonly agentId: string | null;
  readonly memoryId: string | null;
  readonly apiKeyId: string | null;
  readonly details: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
  /** When the relay published it; null while it waits in the outbox. */
  readonly publishedAt: Date | null;
  readonly publishAttempts: number;
}

/** The JSON body of a published audit event (NATS and the in-process bus alike). */
export interface AuditEventPayload {
  readonly event_id: string;
  readonly event_type: string;
  readonly project_id: string;
  readonly agent_id: string | null;
  readonly memory_id: string | null;
  readonly api_key_id: string | null;
  readonly details: Readonly<Record<string, unknown>>;
  /** RFC 3339 with milliseconds, UTC. */
  readonly created_at: string;
}

export function toAuditPayload(record: AuditEventRecord): AuditEventPayload {
  return {
    event_id: record.eventId,
    event_type: record.eventType,
    project_id: record.projectId,
    agent_id: record.agentId,
    memory_id: record.memoryId,
    api_key_id: record.apiKeyId,
    details: record.details,
    created_at: record.createdAt.toISOString(),
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeAuditPayload(payload: AuditEventPayload): Uint8Array {
  return encoder.encode(JSON.stringify(payload));
}

/** Parses a published audit event; throws on anything that is not one. */
export function decodeAuditPayload(data: Uint8Array): AuditEventPayload {
  const v: unknown = JSON.parse(decoder.decode(data));
  if (
    typeof v !== 'object' ||
    v === null ||
    typeof (v as Record<string, unknown>).event_id !== 'string' ||
    typeof (v as Record<string, unknown>).event_type !== 'string' ||
    typeof (v as Record<string, unknown>).project_id !== 'string' ||
    typeof (v as Record<string, unknown>).created_at !== 'string'
  ) {
    throw new TypeError('not an audit event payload');
  }
  return v as AuditEventPayload;
}
