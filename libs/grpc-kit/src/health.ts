import {
  status as Status,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import {
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthService,
  type HealthCheckRequest,
  type HealthCheckResponse,
} from '@engram/proto/grpc/health/v1/health';

export { ServingStatus };

/**
 * A live grpc.health.v1 status map. Dependency probes call `set`; "" is the whole server, which is
 * SERVING only while every registered service is.
 */
export class HealthStatus {
  private readonly statuses = new Map<string, ServingStatus>();
  private readonly watchers = new Map<
    string,
    Set<ServerWritableStream<HealthCheckRequest, HealthCheckResponse>>
  >();

  constructor(services: readonly string[]) {
    for (const s of services) this.statuses.set(s, ServingStatus.NOT_SERVING);
    this.statuses.set('', ServingStatus.NOT_SERVING);
  }

  /** Sets every service (and the server) at once. */
  setAll(serving: boolean): void {
    for (const s of [...this.statuses.keys()]) this.set(s, serving);
  }

  set(service: string, serving: boolean): void {
    const next = serving ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    if (this.statuses.get(service) === next) return;
    this.statuses.set(service, next);
    for (const call of this.watchers.get(service) ?? []) call.write({ status: next });
    if (service !== '') {
      const all = [...this.statuses.entries()].every(([k, v]) => k === '' || v === ServingStatus.SERVING);
      this.set('', all);
    }
  }

  get(service: string): ServingStatus | undefined {
    return this.statuses.get(service);
  }

  /** The grpc-js implementation of grpc.health.v1.Health. */
  implementation(): UntypedServiceImplementation {
    const check: UntypedServiceImplementation[string] = (
      call: { request: HealthCheckRequest },
      callback: (err: { code: Status; details: string } | null, res?: HealthCheckResponse) => void,
    ) => {
      const st = this.statuses.get(call.request.service);
      if (st === undefined) callback({ code: Status.NOT_FOUND, details: 'unknown service' });
      else callback(null, { status: st });
    };
    const watch = (call: ServerWritableStream<HealthCheckRequest, HealthCheckResponse>) => {
      const service = call.request.service;
      call.write({ status: this.statuses.get(service) ?? ServingStatus.SERVICE_UNKNOWN });
      const set = this.watchers.get(service) ?? new Set();
      set.add(call);
      this.watchers.set(service, set);
      call.on('cancelled', () => set.delete(call));
    };
    return { check, watch };
  }

  static readonly definition = HealthService;
}
