/** Subjects are `<prefix>.<encoded project id>.<EVENT_TYPE>`; the default prefix is this. */
export const DEFAULT_SUBJECT_PREFIX = 'engram.audit';

const SAFE = /^[A-Za-z0-9_:@-]$/;
const encoder = new TextEncoder();

/**
 * Encodes a string as one NATS subject token, injectively and reversibly. Project ids allow
 * `[A-Za-z0-9._:@-]`, and `.` separates subject tokens, so every character outside
 * `[A-Za-z0-9_:@-]` (`.`, `*`, `>`, `%`, whitespace, anything non-ASCII) becomes `%XX` per UTF-8 byte,
 * upper-case hex, as in URL percent-encoding: `team.alpha` -> `team%2Ealpha`. Subscribers filter a
 * project with `engram.audit.<encodeSubjectToken(projectId)>.>`.
 */
export function encodeSubjectToken(value: string): string {
  if (value.length === 0) throw new RangeError('a subject token cannot be empty');
  let out = '';
  for (const ch of value) {
    if (SAFE.test(ch)) {
      out += ch;
    } else {
      for (const byte of encoder.encode(ch)) out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
    }
  }
  return out;
}

/** Inverse of encodeSubjectToken. */
export function decodeSubjectToken(token: string): string {
  return decodeURIComponent(token);
}

/** The subject of one audit event. The event type is validated by appendEvent (one safe token). */
export function auditSubject(projectId: string, eventType: string, prefix = DEFAULT_SUBJECT_PREFIX): string {
  return `${prefix}.${encodeSubjectToken(projectId)}.${encodeSubjectToken(eventType)}`;
}

/** A subscription filter: every audit event, or every event of one project. */
export function auditSubjectFilter(projectId?: string, prefix = DEFAULT_SUBJECT_PREFIX): string {
  return projectId === undefined ? `${prefix}.>` : `${prefix}.${encodeSubjectToken(projectId)}.>`;
}
