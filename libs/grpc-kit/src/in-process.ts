import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';
import {
  Metadata,
  status as Status,
  type MethodDefinition,
  type ServiceError,
  type StatusObject,
} from '@grpc/grpc-js';
import { startGrpcClientSpan } from '@engram/telemetry';
import { PEER_CALL_TIMEOUT_MS } from './client.ts';
import type { ServiceRegistration } from './server.ts';

/**
 * The gRPC services of this process called without a socket: the handlers the server runs
 * (bindService's implementations, the health service), given the request bytes and a call object
 * that behaves as grpc-js's does (metadata, deadline, 'cancelled', write/end), with the answer
 * serialized as the server would send it. The embedded suite's services reach each other through
 * it, so a call between them costs no HTTP/2 framing, no loopback socket and no second event-loop
 * turn per message, and keeps what the wire guarantees: a copy of the metadata, the deadline, the
 * caller's cancel, the error status with its trailing metadata, UNIMPLEMENTED for an unknown method.
 */

export interface InProcessCallOptions {
  readonly metadata: Metadata;
  /** On expiry the handler sees 'cancelled' and the caller DEADLINE_EXCEEDED. None: no deadline. */
  readonly deadline?: Date;
  /** Aborting cancels the call: the handler sees 'cancelled' and the caller CANCELLED. */
  readonly signal?: AbortSignal;
}

/** What a unary handler answers through (grpc-js's sendUnaryData). */
type UnaryCallback = (err: unknown, value?: unknown, trailer?: Metadata) => void;
type UnaryImpl = (call: InProcessUnaryCall, callback: UnaryCallback) => void;
type StreamImpl = (call: InProcessServerStream) => void;

interface Method {
  readonly definition: MethodDefinition<unknown, unknown>;
  readonly handler: UnaryImpl | StreamImpl;
}

/** Details of the statuses grpc-js itself sends, so that callers and logs see the same text. */
const CANCELLED_ON_CLIENT = 'Cancelled on client';
const unimplemented = (path: string): StatusObject =>
  status(Status.UNIMPLEMENTED, `The server does not implement the method ${path}`);

function status(code: Status, details: string, metadata: Metadata = new Metadata()): StatusObject {
  return { code, details, metadata };
}

/** The error a grpc-js client call rejects with: an Error carrying code, details and trailers. */
function serviceError(st: StatusObject): ServiceError {
  return Object.assign(new Error(`${st.code} ${Status[st.code]}: ${st.details}`), st);
}

/** What a handler's error becomes on the wire (grpc-js's serverErrorToStatus). */
function statusOfServerError(err: unknown, trailer?: Metadata): StatusObject {
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    code?: unknown;
    details?: unknown;
    message?: unknown;
    metadata?: unknown;
  };
  const metadata = trailer ?? (e.metadata instanceof Metadata ? e.metadata : new Metadata());
  if (typeof e.code === 'number' && Number.isInteger(e.code)) {
    const details =
      typeof e.details === 'string' ? e.details : typeof e.message === 'string' ? e.message : '';
    return status(e.code, details, metadata);
  }
  return status(Status.UNKNOWN, typeof e.message === 'string' ? e.message : 'Unknown Error', metadata);
}

const toBuffer = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** Longest delay setTimeout honours; a later deadline is as good as none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The end of one call, once: the handler's answer, the caller's cancel or the deadline, whichever
 * comes first. The cancel and the deadline also tell the handler (its call emits 'cancelled').
 */
class CallLife {
  private over = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly started = Date.now();
  private onCancelled: () => void = () => {};
  private readonly onAbort = () => this.cancel(status(Status.CANCELLED, CANCELLED_ON_CLIENT));

  constructor(
    private readonly opts: InProcessCallOptions,
    private readonly onEnd: (st: StatusObject) => void,
  ) {}

  /** What tells the handler, once its call exists. */
  whenCancelled(fn: () => void): void {
    this.onCancelled = fn;
  }

  /** Arms the deadline and the signal; false when the call is over before it starts. */
  start(): boolean {
    if (this.opts.signal?.aborted) {
      this.onAbort();
      return false;
    }
    const deadline = this.opts.deadline?.getTime();
    if (deadline !== undefined) {
      const ms = deadline - this.started;
      if (ms <= 0) {
        this.expire();
        return false;
      }
      if (ms <= MAX_TIMER_MS) {
        this.timer = setTimeout(() => this.expire(), ms);
        this.timer.unref();
      }
    }
    this.opts.signal?.addEventListener('abort', this.onAbort, { once: true });
    return true;
  }

  get done(): boolean {
    return this.over;
  }

  /** The handler answered (or the call failed before it ran). */
  finish(st: StatusObject): void {
    if (this.over) return;
    this.over = true;
    clearTimeout(this.timer);
    this.opts.signal?.removeEventListener('abort', this.onAbort);
    this.onEnd(st);
  }

  /** The caller or the deadline ended the call: it fails with `st`, and the handler is told. */
  cancel(st: StatusObject): void {
    if (this.over) return;
    this.finish(st);
    this.onCancelled();
  }

  private expire(): void {
    const seconds = ((Date.now() - this.started) / 1000).toFixed(3);
    this.cancel(status(Status.DEADLINE_EXCEEDED, `Deadline exceeded after ${seconds}s`));
  }
}

/** What every in-process call object offers a handler besides the request (grpc-js's ServerSurfaceCall). */
interface SurfaceCall {
  readonly metadata: Metadata;
  cancelled: boolean;
  getPeer(): string;
  getDeadline(): Date | number;
  getPath(): string;
  getHost(): string;
  sendMetadata(responseMetadata: Metadata): void;
}

const PEER = 'in-process';

/** The call a unary handler receives. */
export class InProcessUnaryCall extends EventEmitter implements SurfaceCall {
  cancelled = false;

  constructor(
    private readonly path: string,
    readonly metadata: Metadata,
    readonly request: unknown,
    private readonly deadline: Date | undefined,
  ) {
    super();
  }

  getPeer = () => PEER;
  getDeadline = () => this.deadline ?? Infinity;
  getPath = () => this.path;
  getHost = () => PEER;
  /** Response headers: nothing reads them in-process. */
  sendMetadata(): void {}

  cancel(): void {
    this.cancelled = true;
    this.emit('cancelled', 'cancelled');
  }
}

/**
 * The call a server-streaming handler writes to. As grpc-js's, a Writable in object mode: write()
 * answers false while the caller has not read what is buffered ('drain' follows), an 'error' event
 * carrying a status ends the call with it, end() ends it OK.
 */
export class InProcessServerStream extends Writable implements SurfaceCall {
  cancelled = false;
  private pending: StatusObject = status(Status.OK, 'OK');
  private trailer = new Metadata();

  constructor(
    private readonly path: string,
    readonly metadata: Metadata,
    readonly request: unknown,
    private readonly deadline: Date | undefined,
    private readonly serialize: (value: unknown) => Buffer,
    private readonly sink: InProcessClientStream,
    private readonly life: CallLife,
  ) {
    super({ objectMode: true });
    this.on('error', (err: unknown) => {
      this.pending = statusOfServerError(err);
      this.end();
    });
  }

  getPeer = () => PEER;
  getDeadline = () => this.deadline ?? Infinity;
  getPath = () => this.path;
  getHost = () => PEER;
  sendMetadata(): void {}

  override _write(chunk: unknown, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    let bytes: Buffer;
    try {
      bytes = this.serialize(chunk);
    } catch (err) {
      this.life.finish(status(Status.INTERNAL, `Error serializing response: ${(err as Error).message}`));
      callback();
      return;
    }
    this.sink.deliver(bytes, callback);
  }

  override _final(callback: (err?: Error | null) => void): void {
    callback(null);
    this.life.finish({ ...this.pending, metadata: this.pending.metadata ?? this.trailer });
  }

  override end(...args: unknown[]): this {
    const [metadata] = args;
    if (metadata instanceof Metadata) {
      this.trailer = metadata;
      return super.end();
    }
    return super.end(...(args as []));
  }

  cancel(): void {
    this.cancelled = true;
    this.emit('cancelled', 'cancelled');
    this.destroy();
  }
}

/**
 * What the caller of a server-streaming method reads, shaped as grpc-js's ClientReadableStream:
 * raw response messages as 'data', then 'end'; a failure emits 'error' (a ServiceError) after the
 * end of the messages, and 'status' closes every call. cancel() stops the handler.
 */
export class InProcessClientStream extends Readable {
  private waiting: (() => void) | undefined;
  private cancelCall: () => void = () => {};

  constructor() {
    super({ objectMode: true });
  }

  /** Set by the invoker: what cancel() does. */
  onCancel(fn: () => void): void {
    this.cancelCall = fn;
  }

  cancel(): void {
    this.cancelCall();
  }

  getPeer(): string {
    return PEER;
  }

  /** One message from the handler; `written` is called once the caller wants more (backpressure). */
  deliver(message: Buffer, written: () => void): void {
    if (this.push(message)) written();
    else this.waiting = written;
  }

  override _read(): void {
    const written = this.waiting;
    this.waiting = undefined;
    written?.();
  }

  /** The call's status, as grpc-js reports it: the end of the messages, the error, the status. */
  close(st: StatusObject): void {
    this.push(null);
    if (st.code !== Status.OK) this.emit('error', serviceError(st));
    this.emit('status', st);
  }
}

/**
 * Invokes the handlers of the given services (those of one gRPC server) by method path. Request and
 * response travel as bytes, as on the wire; `call` does the encoding for a typed caller.
 */
export class InProcessInvoker {
  private readonly methods = new Map<string, Method>();
  private readonly services = new Set<string>();

  constructor(registrations: readonly ServiceRegistration[]) {
    for (const { definition, implementation } of registrations) {
      for (const [name, method] of Object.entries(definition)) {
        const handler = implementation[name] ?? implementation[method.originalName ?? ''];
        if (handler === undefined) continue;
        if (method.requestStream) continue; // no Engram service takes a client stream
        // The implementations are grpc-js handlers; in-process they receive call objects with the
        // same surface (InProcessUnaryCall, InProcessServerStream).
        this.methods.set(method.path, {
          definition: method as MethodDefinition<unknown, unknown>,
          handler: handler as unknown as UnaryImpl | StreamImpl,
        });
        this.services.add(method.path.slice(1, method.path.lastIndexOf('/')));
      }
    }
  }

  /** Whether a service (its full name, e.g. engram.memory.v1.MemoryStoreService) is served here. */
  hasService(service: string): boolean {
    return this.services.has(service);
  }

  /** A unary call; rejects with a ServiceError (code, details, trailing metadata) as grpc-js does. */
  unary(path: string, request: Uint8Array, opts: InProcessCallOptions): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const metadata = opts.metadata.clone();
      const endSpan = startGrpcClientSpan(path, metadata);
      let response: Buffer | undefined;
      const life = new CallLife(opts, (st) => {
        endSpan(st.code);
        if (st.code === Status.OK) resolve(response ?? Buffer.alloc(0));
        else reject(serviceError(st));
      });
      if (!life.start()) return;
      const method = this.methods.get(path);
      if (method === undefined || method.definition.responseStream) return life.finish(unimplemented(path));
      const decoded = decode(method, request);
      if (decoded.status) return life.finish(decoded.status);
      const call = new InProcessUnaryCall(path, metadata, decoded.value, opts.deadline);
      life.whenCancelled(() => call.cancel());
      const answer: UnaryCallback = (err, value, trailer) => {
        if (life.done) return;
        if (err) return life.finish(statusOfServerError(err, trailer));
        try {
          response = method.definition.responseSerialize(value);
        } catch (e) {
          return life.finish(status(Status.INTERNAL, `Error serializing response: ${(e as Error).message}`));
        }
        life.finish(status(Status.OK, 'OK', trailer));
      };
      try {
        (method.handler as UnaryImpl)(call, answer);
      } catch {
        life.finish(status(Status.UNKNOWN, 'Unknown error'));
      }
    });
  }

  /** A unary call with messages: serialized and parsed with the method's own serializers, as on the wire. */
  async call<Req, Res>(
    method: MethodDefinition<Req, Res>,
    request: Req,
    opts: InProcessCallOptions,
  ): Promise<Res> {
    return method.responseDeserialize(await this.unary(method.path, method.requestSerialize(request), opts));
  }

  /**
   * A call from one service to another, as `unary` (client.ts) makes it over a channel: the peer
   * deadline (PEER_CALL_TIMEOUT_MS) from now, the given metadata.
   */
  callPeer<Req, Res>(method: MethodDefinition<Req, Res>, request: Req, metadata: Metadata): Promise<Res> {
    return this.call(method, request, { metadata, deadline: new Date(Date.now() + PEER_CALL_TIMEOUT_MS) });
  }

  /** A server-streaming call; the stream yields raw response messages. */
  serverStream(path: string, request: Uint8Array, opts: InProcessCallOptions): InProcessClientStream {
    const sink = new InProcessClientStream();
    const metadata = opts.metadata.clone();
    const endSpan = startGrpcClientSpan(path, metadata);
    const life = new CallLife(opts, (st) => {
      endSpan(st.code);
      // The caller attaches its listeners after this returns: its events come on a later tick.
      process.nextTick(() => sink.close(st));
    });
    sink.onCancel(() => life.cancel(status(Status.CANCELLED, CANCELLED_ON_CLIENT)));
    if (!life.start()) return sink;
    const method = this.methods.get(path);
    if (method === undefined || !method.definition.responseStream) {
      life.finish(unimplemented(path));
      return sink;
    }
    const decoded = decode(method, request);
    if (decoded.status) {
      life.finish(decoded.status);
      return sink;
    }
    const serialize = (value: unknown) => method.definition.responseSerialize(value);
    const call = new InProcessServerStream(
      path,
      metadata,
      decoded.value,
      opts.deadline,
      serialize,
      sink,
      life,
    );
    life.whenCancelled(() => call.cancel());
    // Like the server, which runs a handler once the request has arrived: never inside this call.
    process.nextTick(() => {
      if (life.done) return;
      try {
        (method.handler as StreamImpl)(call);
      } catch {
        life.finish(status(Status.UNKNOWN, 'Unknown error'));
      }
    });
    return sink;
  }
}

/** The request message, or the status grpc-js answers when it cannot be parsed. */
function decode(method: Method, request: Uint8Array): { value?: unknown; status?: StatusObject } {
  try {
    return { value: method.definition.requestDeserialize(toBuffer(request)) };
  } catch (err) {
    return {
      status: status(Status.INTERNAL, `Error deserializing request: ${(err as Error).message}`),
    };
  }
}
