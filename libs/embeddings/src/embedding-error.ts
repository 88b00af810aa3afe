/**
 * Why an embedding failed. CONFIGURATION: bad settings; HTTP_STATUS: the provider answered non-2xx;
 * MALFORMED_RESPONSE: the body is not the embeddings protocol; DIMENSION_MISMATCH: vectors of another
 * size than configured; TIMEOUT; NETWORK: no answer at all.
 */
export type EmbeddingErrorKind =
  'CONFIGURATION' | 'HTTP_STATUS' | 'MALFORMED_RESPONSE' | 'DIMENSION_MISMATCH' | 'TIMEOUT' | 'NETWORK';

/**
 * An embedding could not be computed. The message names the provider problem, never the input text
 * or the API key. It is an internal error: callers on a request path wrap it (for instance in
 * UnavailableError with this as the cause) rather than send its message to a client.
 */
export class EmbeddingError extends Error {
  override readonly name = 'EmbeddingError';
  /** The provider's HTTP status, for HTTP_STATUS. */
  readonly status: number | undefined;

  constructor(
    message: string,
    readonly kind: EmbeddingErrorKind,
    opts: { readonly status?: number; readonly cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.status = opts.status;
  }
}
