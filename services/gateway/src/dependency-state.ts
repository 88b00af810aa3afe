import type { Logger } from '@engram/logger';

/** The 503 reasons that say a service or its database is down (rather than a bug). */
export const UNAVAILABLE_REASONS: ReadonlySet<string> = new Set([
  'UPSTREAM_UNAVAILABLE',
  'DEPENDENCY_UNAVAILABLE',
]);

interface Outage {
  readonly since: number;
  readonly reason: string;
  refused: number;
}

/**
 * What the gateway logs about upstreams that are down: one line when a service starts answering 503
 * (its own or its database's unavailability), one when it answers again, with how long it was down
 * and how many requests were refused meanwhile. Each refused request is still counted by
 * http_requests_total (status 503, per route); an outage under load is two lines per service rather
 * than one per request.
 */
/** What a failed upstream call said, as logged. */
export interface UpstreamFailure {
  readonly grpc_details?: string;
  readonly previous_attempts?: number;
}

export class DependencyState {
  private readonly down = new Map<string, Outage>();

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A request to `service` was answered 503 with `reason`; `cause` is the failed call's gRPC status
   * (its message says whether the connection dropped, was refused or never became ready) and how many
   * attempts grpc-js made before it, logged with the first refusal of an outage.
   */
  unavailable(service: string, reason: string, route: string, cause: UpstreamFailure = {}): void {
    const outage = this.down.get(service);
    if (outage) {
      outage.refused++;
      return;
    }
    this.down.set(service, { since: this.now(), reason, refused: 1 });
    this.log.warn(
      { upstream: service, reason, route, ...cause },
      'upstream unavailable: answering 503 until it is back (further refusals are counted, not logged)',
    );
  }

  /** A request to `service` succeeded: it is serving again. */
  served(service: string): void {
    const outage = this.down.get(service);
    if (!outage) return;
    this.down.delete(service);
    this.log.warn(
      {
        upstream: service,
        reason: outage.reason,
        refused: outage.refused,
        down_seconds: Math.round((this.now() - outage.since) / 100) / 10,
      },
      'upstream available again',
    );
  }
}
