/** The server's "come back later": the Retry-After header and the RetryInfo detail of an error body. */

const DELTA_SECONDS = /^\d{1,10}$/;

/**
 * Retry-After (RFC 9110 section 10.2.3): delay-seconds or an HTTP-date, as whole seconds from now,
 * rounded up so that a wait never ends before the server's time. Undefined when absent or malformed.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (DELTA_SECONDS.test(text)) return Number(text);
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

const DURATION = /^(\d{1,12})(?:\.(\d{1,9}))?s$/;

/** A google.protobuf.Duration in JSON ("1.500s"), as whole seconds rounded up. */
export function parseDurationSeconds(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DURATION.exec(value);
  if (m === null) return undefined;
  const fraction = m[2] === undefined ? 0 : Number(`0.${m[2]}`);
  return Math.ceil(Number(m[1]) + fraction);
}
