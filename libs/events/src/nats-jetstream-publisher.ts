import { jetstream, jetstreamManager, JetStreamApiError, type JetStreamClient } from '@nats-io/jetstream';
import {
  connect,
  headers,
  InvalidArgumentError,
  InvalidSubjectError,
  type MsgHdrs,
  type NatsConnection,
} from '@nats-io/transport-node';
import type { Logger } from '@engram/logger';
import { tracePublish } from '@engram/telemetry';
import { errorSummary } from './error-summary.ts';
import { EventRejectedError, PublisherUnavailableError } from './errors.ts';
import type { EventPublisher } from './event-publisher.ts';
import { DEFAULT_STREAM_NAME, ensureStream } from './stream.ts';
import { WakeableSleep } from './wakeable-sleep.ts';

export interface NatsJetStreamPublisherOptions {
  /** e.g. `nats://127.0.0.1:4222`, or several for a cluster. */
  readonly servers: string | readonly string[];
  readonly logger: Logger;
  /** Stream name; default ENGRAM_AUDIT. */
  readonly stream?: string;
  /** Subject prefix the stream captures; default `engram.audit`. */
  readonly subjectPrefix?: string;
  readonly duplicateWindowMs?: number;
  /** Create or update the stream on (re)connect; default true. */
  readonly ensureStream?: boolean;
  /** How long a publish waits for the JetStream ack; default 2000. */
  readonly publishTimeoutMs?: number;
  /** Pause between connection attempts while NATS is unreachable; default 1000. */
  readonly reconnectTimeWaitMs?: number;
  /** Handshake timeout of one connection attempt; default 2000. */
  readonly connectTimeoutMs?: number;
  /** Upper bound for close() to drain before it closes hard; default 5000. */
  readonly drainTimeoutMs?: number;
  /** Client name shown by the server's monitoring. */
  readonly name?: string;
}

/**
 * Publishes to JetStream with Nats-Msg-Id = event id, so the stream stores each event once however
 * often the relay sends it within the duplicate window. NATS being down never blocks the service:
 * connect() returns after one attempt and keeps trying in the background (then the client reconnects
 * forever), and publish() fails at once while disconnected, or after publishTimeoutMs when the ack does
 * not come, so the relay retries later.
 */
export class NatsJetStreamPublisher implements EventPublisher {
  private readonly log: Logger;
  private readonly streamName: string;
  private readonly publishTimeoutMs: number;
  private readonly retry = new WakeableSleep();
  private nc: NatsConnection | undefined;
  private js: JetStreamClient | undefined;
  private connected = false;
  private closed = false;
  private streamReady: Promise<void> | undefined;
  private connecting: Promise<void> | undefined;

  private constructor(private readonly opts: NatsJetStreamPublisherOptions) {
    this.log = opts.logger.child({ component: 'nats-publisher' });
    this.streamName = opts.stream ?? DEFAULT_STREAM_NAME;
    this.publishTimeoutMs = opts.publishTimeoutMs ?? 2000;
  }

  /** Makes one connection attempt; when it fails, keeps trying in the background and returns anyway. */
  static async connect(opts: NatsJetStreamPublisherOptions): Promise<NatsJetStreamPublisher> {
    const publisher = new NatsJetStreamPublisher(opts);
    if (!(await publisher.tryConnect(true))) publisher.connecting = publisher.keepConnecting();
    return publisher;
  }

  isConnected(): boolean {
    return !this.closed && this.connected;
  }

  async publish(subject: string, payload: Uint8Array, msgId: string): Promise<void> {
    if (this.closed) throw new PublisherUnavailableError('the NATS publisher is closed');
    const js = this.js;
    if (!js || !this.connected) throw new PublisherUnavailableError('not connected to NATS');
    try {
      if (this.opts.ensureStream !== false) await this.ensureStreamOnce();
      const ack = await tracePublish(
        { name: `publish ${this.streamName}`, system: 'nats', destination: subject, messageId: msgId },
        (trace) =>
          js.publish(subject, payload, {
            msgID: msgId,
            timeout: this.publishTimeoutMs,
            ...(trace === undefined ? {} : { headers: natsHeaders(trace) }),
          }),
      );
      if (ack.duplicate)
        this.log.debug({ msg_id: msgId, stream: ack.stream, seq: ack.seq }, 'duplicate dropped by JetStream');
    } catch (err) {
      if (refusesThisMessage(err))
        throw new EventRejectedError('JetStream refused this event', { cause: err });
      this.streamReady = undefined; // check the stream again next time: it may have been deleted
      throw new PublisherUnavailableError('publish to JetStream failed', { cause: err });
    }
  }

  /** Stops reconnecting, drains the connection (bounded by drainTimeoutMs), closes it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.connected = false;
    this.retry.wake();
    await this.connecting;
    const nc = this.nc;
    if (!nc || nc.isClosed()) return;
    try {
      await withTimeout(nc.drain(), this.opts.drainTimeoutMs ?? 5000);
    } catch (err) {
      this.log.warn({ err: errorSummary(err) }, 'drain failed; closing');
    }
    if (!nc.isClosed()) await nc.close();
  }

  private async tryConnect(first: boolean): Promise<boolean> {
    try {
      const nc = await connect({
        servers: typeof this.opts.servers === 'string' ? this.opts.servers : [...this.opts.servers],
        name: this.opts.name,
        maxReconnectAttempts: -1,
        reconnectTimeWait: this.opts.reconnectTimeWaitMs ?? 1000,
        timeout: this.opts.connectTimeoutMs ?? 2000,
      });
      if (this.closed) {
        await nc.close();
        return true;
      }
      this.adopt(nc);
      this.log.info({ server: nc.getServer() }, 'connected to NATS');
      return true;
    } catch (err) {
      const line = { err: errorSummary(err) };
      if (first) this.log.warn(line, 'NATS unreachable; retrying in the background');
      else this.log.debug(line, 'NATS still unreachable');
      return false;
    }
  }

  private async keepConnecting(): Promise<void> {
    while (!this.closed) {
      await this.retry.sleep(this.opts.reconnectTimeWaitMs ?? 1000);
      if (this.closed || (await this.tryConnect(false))) return;
    }
  }

  private adopt(nc: NatsConnection): void {
    this.nc = nc;
    this.js = jetstream(nc, { timeout: this.publishTimeoutMs });
    this.connected = true;
    this.streamReady = undefined;
    this.prepareStream();
    void this.watch(nc);
    void nc.closed().then(() => {
      if (this.nc !== nc) return;
      this.nc = undefined;
      this.js = undefined;
      this.connected = false;
      if (this.closed) return;
      // The client gave up (it normally reconnects forever, but e.g. an auth error ends it).
      this.log.warn('NATS connection closed; reconnecting');
      this.connecting = this.keepConnecting();
    });
  }

  private async watch(nc: NatsConnection): Promise<void> {
    try {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect') {
          this.connected = false;
          if (!this.closed) this.log.warn('disconnected from NATS');
        } else if (s.type === 'reconnect') {
          this.connected = true;
          this.streamReady = undefined;
          this.log.info({ server: nc.getServer() }, 'reconnected to NATS');
          this.prepareStream();
        }
      }
    } catch (err) {
      this.log.debug({ err: errorSummary(err) }, 'NATS status stream ended');
    }
  }

  /** Ensures the stream right after (re)connecting, so it exists before the first event. */
  private prepareStream(): void {
    if (this.opts.ensureStream === false) return;
    this.ensureStreamOnce().catch((err: unknown) => {
      this.log.warn({ err: errorSummary(err), stream: this.streamName }, 'cannot ensure the stream yet');
    });
  }

  private async ensureStreamOnce(): Promise<void> {
    const nc = this.nc;
    if (!nc) throw new PublisherUnavailableError('not connected to NATS');
    this.streamReady ??= (async () => {
      const jsm = await jetstreamManager(nc, { timeout: this.publishTimeoutMs });
      await ensureStream(jsm, this.streamName, {
        subjectPrefix: this.opts.subjectPrefix,
        duplicateWindowMs: this.opts.duplicateWindowMs,
      });
    })();
    try {
      await this.streamReady;
    } catch (err) {
      this.streamReady = undefined;
      throw err;
    }
  }
}

/** JetStream API error: the message is larger than the stream's max_msg_size. */
const MESSAGE_TOO_LARGE = 10054;

/**
 * A refusal of this message by a working broker, which sending it again cannot change: larger than the
 * stream accepts or than the server's max_payload, or a subject NATS does not take. Anything else
 * (timeouts, no stream, disconnects) may be the broker's state and is retried.
 */
function refusesThisMessage(err: unknown): boolean {
  if (err instanceof JetStreamApiError) return err.code === MESSAGE_TOO_LARGE;
  if (err instanceof InvalidSubjectError) return true;
  return err instanceof InvalidArgumentError && err.message.includes('max_payload');
}

/** The W3C trace context (traceparent, tracestate) as message headers: consumers continue the trace. */
function natsHeaders(fields: Readonly<Record<string, string>>): MsgHdrs {
  const h = headers();
  for (const [k, v] of Object.entries(fields)) h.set(k, v);
  return h;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
