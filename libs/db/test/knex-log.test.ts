import assert from 'node:assert/strict';
import { knexLog, knexLogLine } from '../src/index.ts';

describe('db: knex messages through the process logger', () => {
  it('keeps the first line of a message: no stack, no quoted value, numbers masked', () => {
    const err = new Error('connect ECONNREFUSED 127.0.0.1:54321');
    assert.equal(
      knexLogLine(`Acquire connection error: ${err.stack}`),
      'Acquire connection error: Error: connect ECONNREFUSED N.N.N.N:N',
    );
    assert.equal(
      knexLogLine(`Connection Error: duplicate key (content_hash)=(secret text) in 'my private note'`),
      'Connection Error: duplicate key … in …',
    );
    assert.ok(knexLogLine('x'.repeat(1000)).length <= 201);
  });

  it('logs a message once a minute, counting the repeats in the next line', () => {
    const lines: [string, object, string][] = [];
    let now = 0;
    const log = knexLog(
      {
        warn: (obj, msg) => lines.push(['warn', obj, msg]),
        error: (obj, msg) => lines.push(['error', obj, msg]),
      },
      () => now,
    );
    for (let i = 0; i < 500; i++) {
      log.warn(`Acquire connection error: Error: connect ECONNREFUSED 127.0.0.1:${5000 + i}\n    at x`);
      now += 100; // 50 s of an outage
    }
    log.error('Connection Error: terminated');
    now += 20_000;
    log.warn('Acquire connection error: Error: connect ECONNREFUSED 127.0.0.1:1\n    at y');
    log.debug('select * from memories where content = $1 [my private note]');
    assert.deepEqual(lines, [
      ['warn', {}, 'Acquire connection error: Error: connect ECONNREFUSED N.N.N.N:N'],
      ['error', {}, 'Connection Error: terminated'],
      ['warn', { repeated: 499 }, 'Acquire connection error: Error: connect ECONNREFUSED N.N.N.N:N'],
    ]);
  });
});
