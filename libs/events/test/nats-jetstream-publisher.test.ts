import assert from 'node:assert/strict';
import { StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Database } from '@engram/db';
import {
  appendEvent,
  decodeAuditPayload,
  ensureStream,
  NatsJetStreamPublisher,
  OutboxRelay,
  PublisherUnavailableError,
} from '../src/index.ts';
import { captureLogger } from './support/capture-logger.ts';
import { openMigrated } from './support/databases.ts';
import { eventually } from './support/eventually.ts';
import { freePort } from '@engram/testing';
import { JetStreamObserver, SHARED_NATS, uniqueStream } from './support/jetstream.ts';
import { NatsServerProcess } from './support/nats-server-process.ts';

describe('audit events on the shared nats-server (JetStream)', function () {
  this.timeout(60_000);
  let observer: JetStreamObserver;
  const streams: string[] = [];

  before(async () => {
    observer = await JetStreamObserver.connect(SHARED_NATS);
  });
  after(async () => {
    for (const s of streams) await observer.deleteStream(s);
    await observer.close();
  });

  function newStream() {
    const s = uniqueStream();
    streams.push(s.stream);
    return s;
  }

  it('ensureStream creates a file-backed stream with a 2 minute duplicate window, and updates it', async () => {
    const { stream, subjectPrefix } = newStream();
    const created = await ensureStream(observer.jsm, stream, { subjectPrefix });
    assert.deepEqual(created.config.subjects, [`${subjectPrefix}.>`]);
    assert.equal(created.config.storage, StorageType.File);
    assert.equal(created.config.duplicate_window, nanos(120_000));
    const again = await ensureStream(observer.jsm, stream, { subjectPrefix });
    assert.equal(again.created, created.created);
    const updated = await ensureStream(observer.jsm, stream, { subjectPrefix, duplicateWindowMs: 30_000 });
    assert.equal(updated.config.duplicate_window, nanos(30_000));
    assert.equal((await observer.jsm.streams.info(stream)).config.duplicate_window, nanos(30_000));
  });

  it('delivers a committed audit event to a JetStream consumer with its subject, msg id and payload', async () => {
    const { stream, subjectPrefix } = newStream();
    const { logger } = captureLogger('warn');
    const db: Database = await openMigrated('postgres');
    const publisher = await NatsJetStreamPublisher.connect({
      servers: SHARED_NATS,
      stream,
      subjectPrefix,
      logger,
    });
    const relay = new OutboxRelay({ db, publisher, logger, subjectPrefix, pollIntervalMs: 50 });
    try {
      assert.ok(publisher.isConnected());
      relay.start();
      const ev = await db.knex.transaction((trx) =>
        appendEvent(trx, {
          eventType: 'KEY_REVOKED',
          projectId: 'team.alpha',
          apiKeyId: 'key-7',
          details: { revoked_key_id: 'key-3' },
        }),
      );
      relay.notify();
      const [msg] = await eventually(
        async () => {
          const all = await observer.readAll(stream, 1).catch(() => []); // the stream may not exist yet
          return all.length === 1 ? all : undefined;
        },
        { what: 'the message in the stream' },
      );
      assert.equal(msg!.subject, `${subjectPrefix}.team%2Ealpha.KEY_REVOKED`);
      assert.equal(msg!.headers?.get('Nats-Msg-Id'), ev.eventId);
      assert.deepEqual(decodeAuditPayload(msg!.data), {
        event_id: ev.eventId,
        event_type: 'KEY_REVOKED',
        project_id: 'team.alpha',
        agent_id: null,
        memory_id: null,
        api_key_id: 'key-7',
        details: { revoked_key_id: 'key-3' },
        created_at: ev.createdAt.toISOString(),
      });
      // A redelivery of the same event (same msg id) is not stored again.
      await publisher.publish(msg!.subject, msg!.data, ev.eventId);
      assert.equal(await observer.messageCount(stream), 1);
    } finally {
      await relay.stop();
      await publisher.close();
      await db.close();
    }
    assert.equal(publisher.isConnected(), false);
  });
});

describe('NatsJetStreamPublisher when NATS is not there at start', function () {
  this.timeout(60_000);
  let server: NatsServerProcess | undefined;
  after(async () => {
    await server?.dispose();
  });

  it('starts anyway, fails publishes fast, and connects (and creates the stream) once NATS comes up', async () => {
    const port = await freePort();
    const { stream, subjectPrefix } = uniqueStream();
    const { logger, lines } = captureLogger('info');
    const t0 = Date.now();
    const publisher = await NatsJetStreamPublisher.connect({
      servers: `127.0.0.1:${port}`,
      stream,
      subjectPrefix,
      logger,
      reconnectTimeWaitMs: 100,
    });
    try {
      assert.ok(Date.now() - t0 < 3_000, 'connect() waited for NATS');
      assert.equal(publisher.isConnected(), false);
      assert.ok(lines.some((l) => l.includes('NATS unreachable')));
      const t1 = Date.now();
      await assert.rejects(
        publisher.publish(`${subjectPrefix}.p.T`, new Uint8Array(), 'id-1'),
        PublisherUnavailableError,
      );
      assert.ok(Date.now() - t1 < 500, 'publish did not fail fast');

      server = await NatsServerProcess.start(port);
      await eventually(() => publisher.isConnected(), { what: 'connection', timeoutMs: 10_000 });
      await publisher.publish(`${subjectPrefix}.p.T`, new TextEncoder().encode('{}'), 'id-1');
      const observer = await JetStreamObserver.connect(server.url);
      assert.equal(await observer.messageCount(stream), 1);
      await observer.close();
    } finally {
      await publisher.close();
    }
  });
});
