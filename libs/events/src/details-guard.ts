import { InvalidAuditEventError } from './errors.ts';

/**
 * Key names that may never appear in audit details, at any depth (compared case-insensitively, with
 * `_`, `-` and spaces ignored, so `apiKey`, `API-KEY` and `api_key` are all caught). Audit events
 * are published to NATS and shown to project admins: they describe what happened (ids, counts,
 * categories, hashes), never memory content, keys or secrets.
 */
export const FORBIDDEN_DETAIL_KEYS: readonly string[] = [
  'content',
  'redacted_content',
  'api_key',
  'secret',
  'password',
  'authorization',
];

/** Serialized details larger than this are refused (details are a small typed body). */
export const MAX_DETAILS_BYTES = 16 * 1024;

const forbidden = new Set(FORBIDDEN_DETAIL_KEYS.map(normalizeKey));

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[\s_-]/g, '');
}

/**
 * Throws InvalidAuditEventError when details hold a forbidden key (at any depth, in objects inside
 * arrays too), are not a plain JSON object, or serialize to more than MAX_DETAILS_BYTES. Returns the
 * JSON text to store.
 */
export function checkAuditDetails(details: unknown): string {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) {
    throw new InvalidAuditEventError('audit details must be a JSON object', 'details');
  }
  visit(details, 'details', new Set());
  const json = JSON.stringify(details);
  if (Buffer.byteLength(json, 'utf8') > MAX_DETAILS_BYTES) {
    throw new InvalidAuditEventError(`audit details exceed ${MAX_DETAILS_BYTES} bytes`, 'details');
  }
  return json;
}

function visit(value: unknown, path: string, seen: Set<object>): void {
  if (typeof value !== 'object' || value === null) return;
  if (seen.has(value)) throw new InvalidAuditEventError('audit details must not be cyclic', path);
  seen.add(value);
  if (Array.isArray(value)) {
    value.forEach((item, i) => visit(item, `${path}[${i}]`, seen));
  } else {
    for (const [key, child] of Object.entries(value)) {
      if (forbidden.has(normalizeKey(key))) {
        throw new InvalidAuditEventError(
          `audit details must not carry memory content or secrets (key "${key}")`,
          `${path}.${key}`,
        );
      }
      visit(child, `${path}.${key}`, seen);
    }
  }
  seen.delete(value);
}
