import { PublisherUnavailableError, type EventPublisher } from '../../src/index.ts';

/**
 * Wraps a real publisher: records every publish attempt by msgId and, while `down`, fails them the
 * way an unreachable broker does. Lets relay tests count attempts and break delivery on demand.
 */
export class SwitchablePublisher implements EventPublisher {
  down = false;
  readonly attempts: string[] = [];
  readonly delivered: string[] = [];

  constructor(private readonly inner: EventPublisher) {}

  async publish(subject: string, payload: Uint8Array, msgId: string): Promise<void> {
    this.attempts.push(msgId);
    if (this.down) throw new PublisherUnavailableError('broker down (test)');
    await this.inner.publish(subject, payload, msgId);
    this.delivered.push(msgId);
  }

  isConnected(): boolean {
    return !this.down && this.inner.isConnected();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
