import { InvalidArgumentError } from '@engram/errors';

/** A keyset position: the sort timestamp (exact database text) and the tie-breaking id. */
export interface Position {
  readonly at: string;
  readonly id: string;
}

/** Opaque to clients: base64url of a small JSON object. */
export function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify([p.at, p.id]), 'utf8').toString('base64url');
}

/** undefined for the first page; a cursor the service did not hand out is a 400. */
export function decodeCursor(cursor: string): Position | undefined {
  if (cursor === '') return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      typeof v[0] === 'string' &&
      typeof v[1] === 'string' &&
      !Number.isNaN(Date.parse(v[0])) &&
      /^[0-9a-f-]{36}$/i.test(v[1])
    ) {
      return { at: v[0], id: v[1] };
    }
  } catch {
    // fall through
  }
  throw new InvalidArgumentError('request failed validation', [
    { field: 'cursor', description: 'is not a cursor this service returned', reason: 'INVALID_VALUE' },
  ]);
}
