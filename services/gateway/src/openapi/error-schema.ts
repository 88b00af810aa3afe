import type { Registry } from '@bufbuild/protobuf';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { BAD_REQUEST_TYPE, DETECTION_TYPE, ERROR_INFO_TYPE, RETRY_INFO_TYPE } from '../gateway-error.ts';
import { ERROR_STATUS_SCHEMA, SCHEMA_REF, type Schema, type SchemaComponents } from './json-schema.ts';

/**
 * The one error body (error-writer.ts errorBody) as a schema, and the error responses of the
 * operations, all referencing it.
 */

export const ERROR_SCHEMA = 'Error';
const DETAIL_SCHEMA = 'ErrorDetail';

/** The google.rpc details the services and the gateway attach; any other type keeps only "@type". */
const KNOWN_DETAILS = [ERROR_INFO_TYPE, BAD_REQUEST_TYPE, RETRY_INFO_TYPE, DETECTION_TYPE];

/** The canonical gRPC code names error.code takes (every code but OK). */
const CODE_NAMES = Object.entries(GrpcStatus)
  .filter(([name, value]) => typeof value === 'number' && name !== 'OK')
  .map(([name]) => name);

/** The Error and ErrorDetail schemas; message types they use are registered in `components`. */
export function errorSchemas(components: SchemaComponents, registry: Registry): Record<string, Schema> {
  const detection = registry.getMessage(DETECTION_TYPE.slice(DETECTION_TYPE.lastIndexOf('/') + 1));
  const error: Schema = {
    type: 'object',
    description:
      'The body of every error response. `code` is the canonical gRPC code, `status` the HTTP status, ' +
      '`reason` the machine-readable cause (ErrorInfo.reason), `message` safe to show; `details` are ' +
      'the google.rpc details of the status, each with its "@type". A refused item of a batch carries ' +
      'the same object as its `error`.',
    required: ['code', 'status', 'reason', 'message', 'details'],
    properties: {
      code: { type: 'string', enum: CODE_NAMES },
      status: { type: 'integer', minimum: 400, maximum: 599 },
      reason: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
      message: { type: 'string' },
      details: { type: 'array', items: { $ref: SCHEMA_REF + DETAIL_SCHEMA } },
      ...(detection !== undefined
        ? {
            detections: {
              type: 'array',
              description: 'The content-security findings of a SECURITY_REJECTED write (never their text).',
              items: components.ref(detection),
            },
          }
        : {}),
    },
    additionalProperties: false,
  };
  const variants: Schema[] = [];
  for (const typeUrl of KNOWN_DETAILS) {
    const desc = registry.getMessage(typeUrl.slice(typeUrl.lastIndexOf('/') + 1));
    if (desc === undefined) continue;
    variants.push({
      if: { properties: { '@type': { const: typeUrl } }, required: ['@type'] },
      then: {
        properties: { '@type': { const: typeUrl }, ...components.properties(desc) },
        additionalProperties: false,
      },
    });
  }
  return {
    [ERROR_SCHEMA]: {
      type: 'object',
      required: ['error'],
      properties: { error: { $ref: SCHEMA_REF + ERROR_STATUS_SCHEMA } },
      additionalProperties: false,
    },
    [ERROR_STATUS_SCHEMA]: error,
    [DETAIL_SCHEMA]: {
      type: 'object',
      description:
        'A google.rpc error detail in its JSON form: "@type" plus the fields of that message. ErrorInfo ' +
        '(reason, domain, metadata), BadRequest (field_violations) and RetryInfo (retry_delay) are the ' +
        'usual ones; a type the gateway cannot decode carries only "@type".',
      required: ['@type'],
      properties: { '@type': { type: 'string' } },
      allOf: variants,
    },
  };
}

/** One error response of the document (components/responses). */
interface ErrorResponse {
  readonly name: string;
  readonly description: string;
  readonly headers?: Schema;
}

const retryAfter: Schema = {
  description: 'Seconds to wait before retrying.',
  schema: { type: 'integer', minimum: 1 },
};

export const ERROR_RESPONSES: Readonly<Record<string, ErrorResponse>> = {
  '400': {
    name: 'BadRequest',
    description:
      'Invalid input: VALIDATION_FAILED, with a BadRequest detail naming the field (a body path such ' +
      'as items[1].content, a query parameter or a path variable).',
  },
  '401': {
    name: 'Unauthenticated',
    description: 'A missing, invalid, expired or revoked API key: UNAUTHENTICATED.',
  },
  '403': {
    name: 'PermissionDenied',
    description:
      'The key may not do this: AGENT_MISMATCH, SCOPE_FORBIDDEN, TRUST_FORBIDDEN, ADMIN_REQUIRED, ' +
      'PERMISSION_DENIED.',
  },
  '404': {
    name: 'NotFound',
    description: 'An unknown id, or one the caller may not see (existence is never revealed): NOT_FOUND.',
  },
  '409': {
    name: 'Conflict',
    description:
      'The id exists already, or the current state forbids the change: ALREADY_EXISTS, FAILED_PRECONDITION; ' +
      'or a request with the same Idempotency-Key is still running: IDEMPOTENCY_KEY_IN_PROGRESS (retry after Retry-After).',
    headers: { 'Retry-After': retryAfter },
  },
  '413': { name: 'PayloadTooLarge', description: 'The request body exceeds the limit: PAYLOAD_TOO_LARGE.' },
  '415': {
    name: 'UnsupportedMediaType',
    description: 'The request body is not application/json: UNSUPPORTED_MEDIA_TYPE.',
  },
  '422': {
    name: 'SecurityRejected',
    description:
      'The content policy rejected the content: SECURITY_REJECTED, with error.detections; or the ' +
      'Idempotency-Key was used before with another request: IDEMPOTENCY_KEY_REUSED.',
  },
  '429': {
    name: 'RateLimited',
    description: 'Over the per-project or per-agent rate limit: RATE_LIMITED.',
    headers: {
      'Retry-After': retryAfter,
      'RateLimit-Limit': {
        description: 'Requests per minute of the budget that ran out.',
        schema: { type: 'integer' },
      },
      'RateLimit-Remaining': { description: 'What is left of it (0).', schema: { type: 'integer' } },
      'RateLimit-Reset': { description: 'Seconds until it refills.', schema: { type: 'integer' } },
      'RateLimit-Policy': { description: 'The budget, e.g. "300;w=60".', schema: { type: 'string' } },
    },
  },
  '500': {
    name: 'Internal',
    description: 'A bug: INTERNAL, with a generic message (the cause is only logged).',
  },
  '501': { name: 'NotImplemented', description: 'Not implemented: NOT_IMPLEMENTED.' },
  '503': {
    name: 'Unavailable',
    description:
      'A service or dependency is down: UPSTREAM_UNAVAILABLE, DEPENDENCY_UNAVAILABLE. Retry later.',
    headers: { 'Retry-After': retryAfter },
  },
  '504': { name: 'DeadlineExceeded', description: 'The service did not answer in time: DEADLINE_EXCEEDED.' },
  default: { name: 'Error', description: 'Any other error, in the same body.' },
};

/** The components/responses entries, one per error status, each with the Error body. */
export function errorResponseComponents(): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const r of Object.values(ERROR_RESPONSES)) {
    out[r.name] = {
      description: r.description,
      ...(r.headers !== undefined ? { headers: r.headers } : {}),
      content: { 'application/json': { schema: { $ref: SCHEMA_REF + ERROR_SCHEMA } } },
    };
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A reference to the error response of an HTTP status (or "default"). */
export function errorResponseRef(status: string): Schema {
  const r = ERROR_RESPONSES[status];
  if (r === undefined) throw new Error(`no error response for ${status}`);
  return { $ref: `#/components/responses/${r.name}` };
}
