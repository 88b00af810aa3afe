import type { Socket } from 'node:net';

/** Sends one HTTP/1.1 request on an open socket; resolves with the status line, or rejects when the socket closes first. */
export function request(socket: Socket, path: string): Promise<string> {
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
