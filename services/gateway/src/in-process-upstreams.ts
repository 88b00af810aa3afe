import type { Metadata } from '@grpc/grpc-js';
import type { InProcessInvoker } from '@engram/grpc-kit';
import {
  addressesOf,
  UnknownUpstreamError,
  type UnaryCallOptions,
  type Upstreams,
  type UpstreamStream,
} from './upstream.ts';

/**
 * The upstreams of the embedded suite (EMBEDDED_IN_PROCESS): the services' handlers in this process,
 * called through the invoker instead of a loopback channel. The address map is the one the channels
 * would dial (every service at the process's own gRPC port), so that routing by service and /readyz
 * (which still asks each address's health service, here in-process) read the same as over gRPC.
 */
export class InProcessUpstreams implements Upstreams {
  private readonly byService: ReadonlyMap<string, string>;

  constructor(
    upstreams: Readonly<Record<string, string>>,
    private readonly invoker: InProcessInvoker,
  ) {
    this.byService = new Map(Object.entries(upstreams));
  }

  addresses(): Map<string, string[]> {
    return addressesOf(this.byService);
  }

  hasService(service: string): boolean {
    return this.byService.has(service);
  }

  unary(service: string, grpcPath: string, request: Uint8Array, opts: UnaryCallOptions): Promise<Buffer> {
    if (!this.byService.has(service)) return Promise.reject(new UnknownUpstreamError(service));
    return this.invoker.unary(grpcPath, request, opts);
  }

  serverStream(service: string, grpcPath: string, request: Uint8Array, metadata: Metadata): UpstreamStream {
    if (!this.byService.has(service)) throw new UnknownUpstreamError(service);
    return this.invoker.serverStream(grpcPath, request, { metadata });
  }

  /** Every address is this process: its health service answers in-process too. */
  unaryAt(_address: string, grpcPath: string, request: Uint8Array, opts: UnaryCallOptions): Promise<Buffer> {
    return this.invoker.unary(grpcPath, request, opts);
  }

  /** Nothing to close: the handlers belong to the gRPC server, which the runtime stops after the gateway. */
  close(): void {}
}
