import { readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';

/**
 * Where picked ports come from: below the kernel's ephemeral range. A port the kernel handed out for
 * `listen(0)` and that was closed again goes back to that range, where any process's next outgoing
 * connection (a database client, a gRPC channel) or `listen(0)` may take it before the child process
 * meant to listen there starts: under the two test lanes' load that happened (EADDRINUSE on a
 * gateway's port). A port outside the range is only ever taken by someone who asks for it by number.
 */
function pickRange(): { low: number; high: number } | undefined {
  let ephemeralLow = 32768;
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    if (low !== undefined && Number.isInteger(Number(low))) ephemeralLow = Number(low);
  } catch {
    // Not Linux: the usual default.
  }
  const range = { low: 10_000, high: ephemeralLow - 1 };
  return range.high - range.low >= 1_000 ? range : undefined;
}
const RANGE = pickRange();

/** Listens on 127.0.0.1:port (0: any); resolves with the server, or undefined when the port is taken. */
function listenOn(port: number): Promise<ReturnType<typeof createServer> | undefined> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err),
    );
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}

/** A listening server on a port below the ephemeral range (random, tried up to 50 times), else any port. */
async function holdPort(): Promise<{ srv: ReturnType<typeof createServer>; port: number }> {
  for (let attempt = 0; RANGE && attempt < 50; attempt++) {
    const port = RANGE.low + Math.floor(Math.random() * (RANGE.high - RANGE.low + 1));
    const srv = await listenOn(port);
    if (srv) return { srv, port };
  }
  const srv = await listenOn(0);
  if (!srv) throw new Error('no free TCP port on 127.0.0.1');
  const addr = srv.address();
  return { srv, port: typeof addr === 'object' && addr ? addr.port : 0 };
}

const release = (srv: ReturnType<typeof createServer>) => new Promise<void>((r) => srv.close(() => r()));

/** A TCP port that was free a moment ago on 127.0.0.1, outside the ephemeral range (see pickRange). */
export async function freePort(): Promise<number> {
  const { srv, port } = await holdPort();
  await release(srv);
  return port;
}

/**
 * `n` distinct TCP ports free a moment ago on 127.0.0.1: all held open at once while they are
 * picked, so none repeats.
 */
export async function freePorts(n: number): Promise<number[]> {
  const held: { srv: ReturnType<typeof createServer>; port: number }[] = [];
  try {
    for (let i = 0; i < n; i++) held.push(await holdPort());
    return held.map((h) => h.port);
  } finally {
    await Promise.all(held.map((h) => release(h.srv)));
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
