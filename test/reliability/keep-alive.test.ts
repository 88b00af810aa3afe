import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startTestEngram, type TestEngram } from '@engram/testing';

/** Sends one HTTP/1.1 request on an open socket; resolves with the status line, or rejects when the socket closes first. */
function request(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed || !socket.writable || socket.readableEnded) {
      reject(new Error('the gateway closed the connection while it was idle'));
      return;
    }
    let got = '';
    const onData = (b: Buffer) => {
      got += b.toString('latin1');
      const head = got.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(got.slice(0, head))?.[1] ?? 0);
      if (got.length - head - 4 < length) return;
      cleanup();
      resolve(got.slice(0, got.indexOf('\r\n')));
    };
    const onEnd = () => {
      cleanup();
      reject(new Error('the gateway closed the connection without an answer'));
    };
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('close', onEnd);
      socket.off('end', onEnd);
      socket.off('error', onEnd);
    };
    socket.on('data', onData);
    socket.once('close', onEnd);
    socket.once('end', onEnd);
    socket.once('error', onEnd);
    socket.write(`GET ${path} HTTP/1.1\r\nhost: engram\r\nconnection: keep-alive\r\n\r\n`);
  });
}

/**
 * A client that keeps a connection open between requests (every HTTP client library does) must not
 * have it closed under its next request. Node's default keep-alive timeout (5 s) is shorter than the
 * idle timeout of common clients and load balancers, and shorter than a database outage during which
 * a client pauses: the client then writes its next request into a socket the gateway is closing, and
 * gets no HTTP answer at all.
 */
describe('reliability: the gateway keeps idle client connections open past a pause', function () {
  this.timeout(90_000);
  let t: TestEngram;
  before(async () => (t = await startTestEngram('pglite')));
  after(() => t?.stop());

  it('answers a request sent on a connection idle for 7 s, and says how long it keeps one', async () => {
    const url = new URL(t.baseUrl);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((r) => socket.once('connect', r));
    try {
      assert.match(await request(socket, '/healthz'), /^HTTP\/1\.1 200/);
      await new Promise((r) => setTimeout(r, 7_000));
      assert.match(await request(socket, '/healthz'), /^HTTP\/1\.1 200/);
    } finally {
      socket.destroy();
    }
    const res = await fetch(`${t.baseUrl}/healthz`);
    assert.match(res.headers.get('keep-alive') ?? '', /timeout=(6[5-9]|[7-9]\d|\d{3,})/);
  });
});
