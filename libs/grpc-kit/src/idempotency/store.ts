/**
 * The port bindService records idempotent writes through (docs/decisions.md, "Idempotent writes").
 * grpc-kit does not depend on the database: @engram/idempotency implements it on PostgreSQL and
 * PGlite, and the platform hands it to every service.
 */

/**
 * Whose answer a key names: the project and the API key of the caller, and the client's key. Two API
 * keys of one project never see each other's answers, even with the same Idempotency-Key.
 */
export interface IdempotencyScope {
  readonly projectId: string;
  readonly keyId: string;
  /** The Idempotency-Key the client chose (1 to 255 printable ASCII characters). */
  readonly key: string;
}

/** The request a key was first used with: the RPC path and the SHA-256 of the request's canonical form. */
export interface IdempotentRequest {
  readonly method: string;
  readonly fingerprint: Buffer;
}

/** What the first request answered: the serialized response, or the status of a replayable error. */
export type StoredOutcome =
  | { readonly kind: 'response'; readonly response: Buffer }
  | {
      readonly kind: 'error';
      readonly code: number;
      readonly message: string;
      /** grpc-status-details-bin (google.rpc.Status), when the error carried details. */
      readonly details: Buffer | undefined;
    };

/** The answer of a claim on a key. */
export type IdempotencyClaim =
  /** The caller runs the request and then completes or releases the lease. */
  | { readonly kind: 'acquired'; readonly lease: IdempotencyLease }
  /** The request already ran: answer what it answered. */
  | { readonly kind: 'replay'; readonly outcome: StoredOutcome }
  /** The same request is running elsewhere right now. */
  | { readonly kind: 'in_progress' }
  /** The key was used with another request (another RPC or another body). */
  | { readonly kind: 'reused' };

/** The right to run a request under a key, held until completed or released. */
export interface IdempotencyLease {
  /** Stores the outcome; every claim of the key answers it until the record expires. */
  complete(outcome: StoredOutcome): Promise<void>;
  /** Forgets the claim, so that a retry runs the request again (a transient failure). */
  release(): Promise<void>;
}

export interface IdempotencyStore {
  /**
   * Claims the key for this request, atomically across processes sharing the database: exactly one
   * of concurrent claims acquires it. An expired record, and a record whose holder stopped
   * renewing it (its process died), may be acquired again.
   */
  claim(scope: IdempotencyScope, request: IdempotentRequest): Promise<IdempotencyClaim>;
}
