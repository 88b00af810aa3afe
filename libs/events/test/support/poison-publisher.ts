import { EventRejectedError, type EventPublisher } from '../../src/index.ts';

/**
 * A test double of our own EventPublisher around a real one: fails chosen events forever, the way a
 * broker fails one message it will never take (`failing`: an unexplained error, `rejected`: an
 * EventRejectedError, `rejectSubject`: every subject it matches), or every event while `down`.
 */
export class PoisonPublisher implements EventPublisher {
  down = false;
  readonly failing = new Set<string>();
  readonly rejected = new Set<string>();
  rejectSubject: (subject: string) => boolean = () => false;
  readonly attempts: string[] = [];

  constructor(private readonly inner: EventPublisher) {}

  async publish(subject: string, payload: Uint8Array, msgId: string): Promise<void> {
    this.attempts.push(msgId);
    if (this.down) throw new Error('connection refused (test)');
    if (this.failing.has(msgId)) throw new Error('the broker dropped this message (test)');
    if (this.rejected.has(msgId) || this.rejectSubject(subject))
      throw new EventRejectedError('message size exceeds maximum allowed (test)');
    await this.inner.publish(subject, payload, msgId);
  }

  isConnected(): boolean {
    return !this.down && this.inner.isConnected();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
