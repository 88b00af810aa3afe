import { createHash } from 'node:crypto';

/**
 * SHA-256 of the RPC path and the decoded request in a canonical form: object keys sorted (so a
 * metadata map sent in another key order is the same request), undefined fields left out, bytes in
 * base64, dates as ISO strings. Not the wire bytes: protobuf does not fix the order of map entries.
 */
export function requestFingerprint(method: string, request: unknown): Buffer {
  return createHash('sha256').update(method).update('\n').update(canonicalJson(request)).digest();
}

/** A deterministic JSON text of a decoded protobuf message (ts-proto's plain objects). */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Uint8Array) return JSON.stringify({ $bytes: Buffer.from(value).toString('base64') });
  if (value instanceof Date) return JSON.stringify({ $date: value.getTime() });
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'bigint') return JSON.stringify(value.toString());
  if (typeof value === 'object') {
    const fields = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
