import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';

export interface ReceivedEvent {
  readonly subject: string;
  readonly payload: Record<string, unknown>;
}

/** A real JetStream consumer of the audit stream: reads every event with an ordered consumer. */
export class AuditConsumer {
  private constructor(private readonly nc: NatsConnection) {}

  static async connect(url: string): Promise<AuditConsumer> {
    return new AuditConsumer(await connect({ servers: url }));
  }

  /** Reads the stream until an event matches, or fails after timeoutMs. */
  async waitFor(
    stream: string,
    match: (e: ReceivedEvent) => boolean,
    timeoutMs = 15_000,
  ): Promise<ReceivedEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const seen: ReceivedEvent[] = [];
      try {
        const consumer = await jetstream(this.nc).consumers.get(stream);
        for (;;) {
          const m = await consumer.next({ expires: 1000 });
          if (!m) break;
          seen.push({ subject: m.subject, payload: m.json<Record<string, unknown>>() });
        }
      } catch {
        // stream not created yet: the relay creates it on its first connection
      }
      if (seen.some(match)) return seen;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`no matching audit event on ${stream} within ${timeoutMs} ms`);
  }

  close(): Promise<void> {
    return this.nc.close();
  }
}
