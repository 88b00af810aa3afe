import { randomBytes } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';

export const SHARED_NATS = 'nats://127.0.0.1:4222';

/** A stream name and subject prefix no other test run uses (streams may not overlap in subjects). */
export function uniqueStream(): { stream: string; subjectPrefix: string } {
  const id = randomBytes(5).toString('hex');
  return { stream: `ENGRAM_AUDIT_TEST_${id.toUpperCase()}`, subjectPrefix: `engram_test_${id}.audit` };
}

/** A plain client of a nats-server, as a downstream consumer of audit events would have. */
export class JetStreamObserver {
  private constructor(
    readonly nc: NatsConnection,
    readonly jsm: JetStreamManager,
  ) {}

  static async connect(servers: string): Promise<JetStreamObserver> {
    const nc = await connect({ servers });
    return new JetStreamObserver(nc, await jetstreamManager(nc));
  }

  async messageCount(stream: string): Promise<number> {
    return (await this.jsm.streams.info(stream)).state.messages;
  }

  /** Reads the stream from the start with an ordered consumer until `max` messages or a quiet second. */
  async readAll(stream: string, max = 10_000): Promise<JsMsg[]> {
    const consumer = await jetstream(this.nc).consumers.get(stream);
    const out: JsMsg[] = [];
    while (out.length < max) {
      const m = await consumer.next({ expires: 1000 });
      if (!m) break;
      out.push(m);
    }
    return out;
  }

  async deleteStream(stream: string): Promise<void> {
    try {
      await this.jsm.streams.delete(stream);
    } catch {
      // already gone
    }
  }

  async close(): Promise<void> {
    await this.nc.close();
  }
}
