/** Error codes of a dependency that is down or not ready: errno of the socket, or SQLSTATE. */
const DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '42P01',
  // read_only_sql_transaction: a primary that became a standby, or a read-only data directory.
  '25006',
]);

/**
 * What node-postgres throws, without a code, when a connection breaks under a query or cannot be
 * made in time (its own messages, matched whole; knex prefixes the statement).
 */
const PG_CONNECTION_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Connection terminated due to connection timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Query read timeout',
  'timeout expired',
]);

/** One of those messages, alone or as knex reports it (the statement, " - ", the message). */
function isPgConnectionMessage(message: string): boolean {
  if (PG_CONNECTION_MESSAGES.has(message)) return true;
  const i = message.lastIndexOf(' - ');
  return i >= 0 && PG_CONNECTION_MESSAGES.has(message.slice(i + 3));
}

/**
 * A database or network dependency that is down or not ready (connection refused, reset or broken
 * under a query, server shutting down or starting up, out of resources such as disk (SQLSTATE class
 * 53), pool acquisition or statement timeout, schema not yet migrated by its owner): 503, retry later.
 */
export function isDependencyDown(err: unknown): boolean {
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur instanceof Error && !seen.has(cur)) {
    seen.add(cur);
    const code = (cur as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      (DOWN_CODES.has(code) || code.startsWith('08') || code.startsWith('53') || code === '57014')
    )
      return true;
    if (cur.name === 'KnexTimeoutError') return true;
    if (code === undefined && isPgConnectionMessage(cur.message)) return true;
    cur = cur.cause;
  }
  return false;
}
