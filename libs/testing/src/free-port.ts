import { createConnection, createServer } from 'node:net';

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * `n` distinct TCP ports free a moment ago on 127.0.0.1: all held open at once while they are
 * picked, since ports asked for one after another may repeat (one just closed is free again).
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers = Array.from({ length: n }, () => createServer());
  try {
    return await Promise.all(
      servers.map(
        (srv) =>
          new Promise<number>((resolve, reject) => {
            srv.once('error', reject);
            srv.listen(0, '127.0.0.1', () => {
              const addr = srv.address();
              resolve(typeof addr === 'object' && addr ? addr.port : 0);
            });
          }),
      ),
    );
  } finally {
    await Promise.all(
      servers.map(
        (srv) => new Promise<void>((resolve) => (srv.listening ? srv.close(() => resolve()) : resolve())),
      ),
    );
  }
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
