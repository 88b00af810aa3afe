import type { Readable } from 'node:stream';
import {
  Client,
  credentials,
  type ClientReadableStream,
  type Metadata,
  type ServiceError,
} from '@grpc/grpc-js';
import { channelServiceConfig, type MethodName } from '@engram/grpc-kit';
import { grpcClientInterceptors } from '@engram/telemetry';

/**
 * One grpc-js client (one channel) per distinct upstream address, called generically: requests and
 * responses travel as bytes (identity serializers) and are encoded and decoded with the descriptor
 * registry by the caller.
 */

const identity = (b: Buffer): Buffer => b;
const toBuffer = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

const CHANNEL_OPTIONS = {
  // Responses (export rows, context bundles) may be larger than grpc-js's 4 MiB default.
  'grpc.max_receive_message_length': 64 * 1024 * 1024,
  // Come back quickly after an upstream restart, so readiness recovers within seconds.
  'grpc.initial_reconnect_backoff_ms': 500,
  'grpc.max_reconnect_backoff_ms': 5000,
};

export class UnknownUpstreamError extends Error {
  override readonly name = 'UnknownUpstreamError';
  constructor(readonly service: string) {
    super(`no upstream address configured for ${service}`);
  }
}

export interface UnaryCallOptions {
  readonly metadata: Metadata;
  readonly deadline: Date;
  /** Cancels the call (the HTTP client went away). */
  readonly signal?: AbortSignal;
}

/** A server-streaming call as the gateway reads it: raw messages, then 'end'; 'error'; cancel(). */
export type UpstreamStream = Readable & { cancel(): void };

/**
 * How the gateway reaches the services: over grpc-js channels (UpstreamPool), or in the embedded
 * suite by calling their handlers in this process (InProcessUpstreams). Failures are grpc-js
 * ServiceErrors either way, so that the error table maps both alike.
 */
export interface Upstreams {
  /** The distinct addresses, each with the services behind it (what /readyz checks and names). */
  addresses(): Map<string, string[]>;
  hasService(service: string): boolean;
  /** A unary call; rejects with the ServiceError (code, details, trailing metadata). */
  unary(service: string, grpcPath: string, request: Uint8Array, opts: UnaryCallOptions): Promise<Buffer>;
  /** A server-streaming call; the stream yields raw response messages. */
  serverStream(service: string, grpcPath: string, request: Uint8Array, metadata: Metadata): UpstreamStream;
  /** A unary call to one address, whichever services it serves (readiness asks each its health). */
  unaryAt(address: string, grpcPath: string, request: Uint8Array, opts: UnaryCallOptions): Promise<Buffer>;
  /** Closes what the calls use; calls still running fail. */
  close(): void;
}

/** The distinct addresses of a service -> address map, each with the services behind it. */
export function addressesOf(byService: ReadonlyMap<string, string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [service, addr] of byService) out.set(addr, [...(out.get(addr) ?? []), service]);
  return out;
}

export class UpstreamPool implements Upstreams {
  private readonly clients = new Map<string, Client>();
  private readonly byService: ReadonlyMap<string, string>;

  /**
   * @param upstreams proto service full name -> gRPC target: "host:port", a DNS name that resolves to
   *   every replica, or a list "ipv4:host:port,host:port"
   * @param readOnly methods retried on another replica when the one serving them fails
   */
  constructor(
    upstreams: Readonly<Record<string, string>>,
    private readonly readOnly: readonly MethodName[] = [],
  ) {
    this.byService = new Map(Object.entries(upstreams));
  }

  /** The distinct addresses, each with the services behind it. */
  addresses(): Map<string, string[]> {
    return addressesOf(this.byService);
  }

  hasService(service: string): boolean {
    return this.byService.has(service);
  }

  /**
   * The client of an address, created on first use; while tracing is on its calls are CLIENT spans
   * that carry the request's trace context to the upstream.
   */
  clientFor(address: string): Client {
    let client = this.clients.get(address);
    if (client === undefined) {
      client = new Client(address, credentials.createInsecure(), {
        ...CHANNEL_OPTIONS,
        'grpc.service_config': channelServiceConfig(this.readOnly),
        interceptors: grpcClientInterceptors(),
      });
      this.clients.set(address, client);
    }
    return client;
  }

  private clientOfService(service: string): Client {
    const address = this.byService.get(service);
    if (address === undefined) throw new UnknownUpstreamError(service);
    return this.clientFor(address);
  }

  /** A unary call; rejects with the grpc-js ServiceError (code, details, trailing metadata). */
  unary(service: string, grpcPath: string, request: Uint8Array, opts: UnaryCallOptions): Promise<Buffer> {
    const client = this.clientOfService(service);
    return unaryOn(client, grpcPath, request, opts);
  }

  /** A server-streaming call; the stream yields raw response messages. */
  serverStream(
    service: string,
    grpcPath: string,
    request: Uint8Array,
    metadata: Metadata,
  ): ClientReadableStream<Buffer> {
    const client = this.clientOfService(service);
    return client.makeServerStreamRequest(grpcPath, identity, identity, toBuffer(request), metadata, {});
  }

  unaryAt(address: string, grpcPath: string, request: Uint8Array, opts: UnaryCallOptions): Promise<Buffer> {
    return unaryOn(this.clientFor(address), grpcPath, request, opts);
  }

  /** Closes every channel; calls still running fail with CANCELLED/UNAVAILABLE. */
  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}

/** A unary call on a given client, with the identity serializers. */
export function unaryOn(
  client: Client,
  grpcPath: string,
  request: Uint8Array,
  opts: UnaryCallOptions,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const call = client.makeUnaryRequest(
      grpcPath,
      identity,
      identity,
      toBuffer(request),
      opts.metadata,
      { deadline: opts.deadline },
      (err: ServiceError | null, value?: Buffer) => {
        opts.signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve(value ?? Buffer.alloc(0));
      },
    );
    const onAbort = () => call.cancel();
    if (opts.signal?.aborted) call.cancel();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
