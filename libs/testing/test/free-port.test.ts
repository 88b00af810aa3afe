import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort, freePorts } from '../src/free-port.ts';

/** The kernel's ephemeral range, where listen(0) and outgoing connections take their ports. */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32768;
  }
}

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

describe('freePort and freePorts (@engram/testing)', () => {
  it('give ports below the ephemeral range that a child process can then bind', async () => {
    const low = ephemeralLow();
    const one = await freePort();
    const many = await freePorts(20);
    for (const port of [one, ...many]) {
      assert.ok(port >= 1024 && port < low, `port ${port} is not below the ephemeral range (${low})`);
      assert.ok(await bindable(port), `port ${port} is taken`);
    }
    assert.equal(new Set(many).size, 20, 'freePorts repeated a port');
  });
});
