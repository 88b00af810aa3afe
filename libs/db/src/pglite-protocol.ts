/** The messages between the main thread (pglite-thread.ts) and the database thread (pglite-worker.ts). */

export type ThreadRequest =
  | {
      readonly id: number;
      readonly op: 'query';
      readonly sql: string;
      readonly params: unknown[] | undefined;
      readonly options: Record<string, unknown> | undefined;
    }
  | { readonly id: number; readonly op: 'exec'; readonly sql: string }
  | { readonly id: number; readonly op: 'close' };

/** id 0 answers the open: result null when PGlite is ready, error when it failed to open. */
export type ThreadReply =
  | { readonly id: number; readonly result: unknown; readonly error?: undefined }
  | { readonly id: number; readonly error: SerializedError; readonly result?: undefined };

/** An error's name, message and own fields (SQLSTATE code, detail, constraint, ...): what callers read. */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

/** The fields of a PGlite (pg-protocol) error that cross the thread boundary; functions and objects stay. */
export function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(err))
    if (k !== 'name' && k !== 'message' && (v === null || ['string', 'number', 'boolean'].includes(typeof v)))
      fields[k] = v;
  return { name: err.name, message: err.message, fields };
}

/** The error again on this side: an Error with the same name, message and fields (no stack of the other thread). */
export function deserializeError(e: SerializedError): Error {
  const err = new Error(e.message);
  Object.defineProperty(err, 'name', {
    value: e.name,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  Object.assign(err, e.fields);
  return err;
}
