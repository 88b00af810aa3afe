import assert from 'node:assert/strict';
import {
  decodeAuditPayload,
  InProcessBus,
  PublisherUnavailableError,
  type BusMessage,
} from '../src/index.ts';
import { captureLogger } from './support/capture-logger.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('InProcessBus', () => {
  it('delivers to every handler whose pattern matches, in subscription order', async () => {
    const bus = new InProcessBus({ logger: captureLogger().logger });
    const seen: string[] = [];
    bus.subscribe('engram.audit.>', (m) => void seen.push(`all:${m.subject}`));
    bus.subscribe('engram.audit.p1.*', (m) => void seen.push(`p1:${m.subject}`));
    bus.subscribe('engram.audit.*.KEY_REVOKED', (m) => void seen.push(`revoked:${m.subject}`));
    await bus.publish('engram.audit.p1.KEY_CREATED', bytes('{}'), 'id-1');
    await bus.publish('engram.audit.p2.KEY_REVOKED', bytes('{}'), 'id-2');
    await bus.publish('other.subject', bytes('{}'), 'id-3');
    assert.deepEqual(seen, [
      'all:engram.audit.p1.KEY_CREATED',
      'p1:engram.audit.p1.KEY_CREATED',
      'all:engram.audit.p2.KEY_REVOKED',
      'revoked:engram.audit.p2.KEY_REVOKED',
    ]);
  });

  it('waits for async handlers and gives each its own copy of the bytes', async () => {
    const bus = new InProcessBus({ logger: captureLogger().logger });
    const got: string[] = [];
    bus.subscribe('a.>', async (m) => {
      await new Promise((r) => setTimeout(r, 20));
      m.data.fill(0);
      got.push('slow');
    });
    bus.subscribe('a.>', (m) => void got.push(new TextDecoder().decode(m.data)));
    await bus.publish('a.b', bytes('hello'), 'id-1');
    assert.deepEqual(got, ['slow', 'hello']);
  });

  it('drops a message id seen within the duplicate window, delivers it again after the window', async () => {
    let now = 1_000;
    const bus = new InProcessBus({ logger: captureLogger().logger, duplicateWindowMs: 100, now: () => now });
    const ids: string[] = [];
    bus.subscribe('x.>', (m) => void ids.push(m.msgId));
    await bus.publish('x.y', bytes('1'), 'a');
    await bus.publish('x.y', bytes('1'), 'a');
    await bus.publish('x.y', bytes('2'), 'b');
    now += 99;
    await bus.publish('x.z', bytes('1'), 'a');
    assert.deepEqual(ids, ['a', 'b']);
    now += 1;
    await bus.publish('x.y', bytes('1'), 'a');
    assert.deepEqual(ids, ['a', 'b', 'a']);
  });

  it('logs a failing handler (without the payload) and still delivers to the others', async () => {
    const { logger, lines } = captureLogger();
    const bus = new InProcessBus({ logger });
    const ok: BusMessage[] = [];
    bus.subscribe('e.>', () => {
      throw new Error('handler bug');
    });
    bus.subscribe('e.>', () => Promise.reject(new Error('async handler bug')));
    bus.subscribe('e.>', (m) => void ok.push(m));
    await bus.publish('e.f', bytes('{"event_id":"1","secret_marker":"zz-do-not-log"}'), 'id-1');
    assert.equal(ok.length, 1);
    const errors = lines.filter((l) => l.includes('event handler failed'));
    assert.equal(errors.length, 2);
    assert.ok(errors[0]!.includes('handler bug') && errors[1]!.includes('async handler bug'));
    assert.ok(!lines.some((l) => l.includes('zz-do-not-log')));
  });

  it('stops delivering after unsubscribe, and refuses publishes once closed', async () => {
    const bus = new InProcessBus({ logger: captureLogger().logger });
    let n = 0;
    const off = bus.subscribe('a.*', () => void n++);
    await bus.publish('a.b', bytes('{}'), '1');
    off();
    await bus.publish('a.b', bytes('{}'), '2');
    assert.equal(n, 1);
    assert.ok(bus.isConnected());
    await bus.close();
    assert.equal(bus.isConnected(), false);
    await assert.rejects(bus.publish('a.b', bytes('{}'), '3'), PublisherUnavailableError);
  });

  it('rejects malformed subscription patterns', () => {
    const bus = new InProcessBus({ logger: captureLogger().logger });
    for (const p of ['', 'a..b', 'a.>.b', 'a b'])
      assert.throws(() => bus.subscribe(p, () => {}), RangeError, p);
  });

  it('decodeAuditPayload refuses what is not an audit event', () => {
    assert.throws(() => decodeAuditPayload(bytes('{"event_id":1}')), TypeError);
    assert.throws(() => decodeAuditPayload(bytes('null')), TypeError);
  });
});
