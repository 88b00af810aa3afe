import assert from 'node:assert/strict';
import { createLogger } from '@engram/logger';
import { DependencyState } from '../src/dependency-state.ts';

describe('gateway: upstream outages are logged once each way', () => {
  it('one line when a service goes down, one when it serves again, with the refusals counted', () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger({
      service: 'gateway',
      level: 'info',
      destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
    });
    let now = 1_000;
    const state = new DependencyState(log, () => now);
    const svc = 'engram.memory.v1.MemoryStoreService';
    for (let i = 0; i < 50; i++) state.unavailable(svc, 'DEPENDENCY_UNAVAILABLE', '/memories/add');
    state.unavailable('engram.ace.v1.AceService', 'UPSTREAM_UNAVAILABLE', '/ace/run');
    now += 12_345;
    state.served(svc);
    state.served(svc); // already up: nothing
    state.unavailable(svc, 'DEPENDENCY_UNAVAILABLE', '/memories/add'); // a new outage: a new line
    assert.deepEqual(
      lines.map((l) => [l.msg, l.upstream, l.refused, l.down_seconds]),
      [
        [lines[0]!.msg, svc, undefined, undefined],
        [lines[1]!.msg, 'engram.ace.v1.AceService', undefined, undefined],
        ['upstream available again', svc, 50, 12.3],
        [lines[0]!.msg, svc, undefined, undefined],
      ],
    );
    assert.match(String(lines[0]!.msg), /^upstream unavailable/);
  });
});
