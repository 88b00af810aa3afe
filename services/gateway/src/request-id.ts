import { randomUUID } from 'node:crypto';

/** A request id a client may choose: short, and safe to echo in a header and to log. */
const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's x-request-id when it is acceptable, else a new UUID. */
export function pickRequestId(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  return given !== undefined && ACCEPTABLE.test(given) ? given : randomUUID();
}
