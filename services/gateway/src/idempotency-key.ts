import type { IncomingMessage } from 'node:http';
import { validationFailed } from './gateway-error.ts';

/** The HTTP header (IETF draft-ietf-httpapi-idempotency-key-header) and the gRPC metadata key it travels as. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** 1 to 255 printable ASCII characters; the services check the metadata by the same rule. */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/**
 * The Idempotency-Key of a request that may change state, undefined when absent or on a GET (which
 * changes nothing: the header is ignored there). A malformed or repeated header is 400
 * VALIDATION_FAILED naming it, before anything reaches a service.
 */
export function idempotencyKeyOf(req: IncomingMessage, httpMethod: string): string | undefined {
  if (httpMethod === 'GET') return undefined;
  const raw = req.headersDistinct[IDEMPOTENCY_KEY_HEADER];
  if (raw === undefined) return undefined;
  const [value] = raw;
  if (raw.length === 1 && value !== undefined && KEY_PATTERN.test(value)) return value;
  throw validationFailed('Idempotency-Key', 'must be one header of 1 to 255 printable ASCII characters');
}
