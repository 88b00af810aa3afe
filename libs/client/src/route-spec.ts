/**
 * One REST route of the gateway as the client needs it, generated from the google.api.http
 * annotations (scripts/gen-client.ts writes every route into generated/api.ts).
 */
export interface RouteSpec {
  /** The RPC behind the route, e.g. "engram.memory.v1.MemoryStoreService/GetMemory". */
  readonly rpc: string;
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The path template, e.g. "/memories/{id}": each {name} is a request field. */
  readonly path: string;
  /** The request fields bound by the path, in template order. */
  readonly pathParams: readonly string[];
  /** "*" (the request minus path fields is the JSON body), "" (no body) or one request field. */
  readonly body: string;
  /** True when the answer is a stream of messages (NDJSON). */
  readonly streaming: boolean;
  /** True when the route changes nothing (GET, or an RPC declared NO_SIDE_EFFECTS): always safe to retry. */
  readonly readOnly: boolean;
  /**
   * True when the server records writes by Idempotency-Key (a repeat returns the first answer): every
   * call carries one, the same on each attempt, so a call lost in transit is safe to retry.
   */
  readonly idempotencyKey: boolean;
}
