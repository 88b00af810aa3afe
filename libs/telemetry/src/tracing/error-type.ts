/**
 * The error.type of a failed operation: a class name or a code, never the message. Messages are
 * left out on purpose: a database error's message carries the statement with its bound values
 * (knex formats them in) and a validation error may quote the content it refused.
 */
export function errorType(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const code = (err as { code?: unknown }).code;
    // PostgreSQL SQLSTATE (23505) or a Node system error code (ECONNREFUSED).
    if (typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code)) return code;
    const name = (err as { name?: unknown }).name;
    if (typeof name === 'string' && /^[A-Za-z0-9_.]{1,64}$/.test(name)) return name;
  }
  return '_OTHER';
}
