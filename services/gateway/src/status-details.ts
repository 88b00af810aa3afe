import { fromBinary, toJson, type Registry } from '@bufbuild/protobuf';
import { ErrorInfo, RetryInfo } from '@engram/proto/google/rpc/error_details';
import { Status } from '@engram/proto/google/rpc/status';
import {
  DETECTION_TYPE,
  ERROR_INFO_TYPE,
  RETRY_INFO_TYPE,
  type JsonObject,
  type JsonValue,
} from './gateway-error.ts';

/** The rich error model of a gRPC status (google.rpc.Status in grpc-status-details-bin). */
export interface RichStatus {
  readonly message: string;
  /** ErrorInfo.reason, when an ErrorInfo detail is present. */
  readonly reason: string | undefined;
  /** ErrorInfo.metadata (for RATE_LIMITED: scope, limit, remaining, reset_seconds). */
  readonly errorMetadata: Readonly<Record<string, string>>;
  /** RetryInfo.retry_delay rounded up to whole seconds (at least 1), when present. */
  readonly retryAfterSeconds: number | undefined;
  /** Every detail as proto3 JSON with "@type". */
  readonly details: JsonObject[];
  /** The engram.memory.v1.Detection details, as proto3 JSON without "@type". */
  readonly detections: JsonObject[];
}

export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/**
 * Decodes grpc-status-details-bin. Details are rendered generically through the descriptor
 * registry (any message type it knows); an unknown or undecodable detail keeps only its "@type".
 * Returns undefined when the trailer is absent or is not a google.rpc.Status.
 */
export function decodeStatusDetails(bin: Uint8Array | undefined, registry: Registry): RichStatus | undefined {
  if (bin === undefined) return undefined;
  let status: Status;
  try {
    status = Status.decode(bin);
  } catch {
    return undefined;
  }
  let reason: string | undefined;
  let errorMetadata: Record<string, string> = {};
  let retryAfterSeconds: number | undefined;
  const details: JsonObject[] = [];
  const detections: JsonObject[] = [];
  for (const any of status.details) {
    const json = renderAny(any.type_url, any.value, registry);
    details.push(json);
    try {
      if (any.type_url === ERROR_INFO_TYPE) {
        const info = ErrorInfo.decode(any.value);
        reason = info.reason || reason;
        errorMetadata = { ...info.metadata };
      } else if (any.type_url === RETRY_INFO_TYPE) {
        const delay = RetryInfo.decode(any.value).retry_delay;
        if (delay !== undefined) {
          const seconds = delay.seconds + delay.nanos / 1e9;
          if (Number.isFinite(seconds)) retryAfterSeconds = Math.max(1, Math.ceil(seconds));
        }
      } else if (any.type_url === DETECTION_TYPE) {
        const { '@type': _type, ...rest } = json;
        detections.push(rest);
      }
    } catch {
      // A malformed detail is shown by its @type only; it never turns into a 5xx.
    }
  }
  return { message: status.message, reason, errorMetadata, retryAfterSeconds, details, detections };
}

function renderAny(typeUrl: string, value: Uint8Array, registry: Registry): JsonObject {
  const typeName = typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
  const desc = registry.getMessage(typeName);
  if (desc === undefined) return { '@type': typeUrl };
  try {
    const json: JsonValue = toJson(desc, fromBinary(desc, value), {
      registry,
      useProtoFieldName: true,
      alwaysEmitImplicit: true,
    });
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
      return { '@type': typeUrl, ...json };
    }
    return { '@type': typeUrl, value: json };
  } catch {
    return { '@type': typeUrl };
  }
}
