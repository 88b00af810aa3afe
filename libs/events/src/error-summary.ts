/**
 * A log-safe description of an error: names and messages along the cause chain, no stack, no
 * properties (an error object may carry a request or a payload).
 */
export function errorSummary(err: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur !== undefined && cur !== null && !seen.has(cur) && parts.length < 5) {
    seen.add(cur);
    if (cur instanceof Error) {
      parts.push(`${cur.name}: ${cur.message}`);
      cur = cur.cause;
    } else {
      parts.push(typeof cur === 'string' ? cur : `thrown ${typeof cur}`);
      break;
    }
  }
  return parts.join(' <- ');
}
