import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger, runWithRequestContext } from '../src/index.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString('utf8'));
      cb();
    },
  });
  return { lines, logger: createLogger({ service: 'svc', level: 'info', destination }) };
}

describe('logger', () => {
  it('never writes memory content, keys or secrets, even when handed them', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        content: 'the secret plan',
        request: { api_key: 'egk_abc', authorization: 'Bearer x', content: 'nested' },
      },
      'oops',
    );
    const out = lines.join('');
    for (const leaked of ['the secret plan', 'egk_abc', 'Bearer x', 'nested'])
      assert.ok(!out.includes(leaked), leaked);
    assert.match(out, /\[redacted\]/);
  });

  it('stamps every line with the service, component and request id', () => {
    const { lines, logger } = capture();
    runWithRequestContext({ requestId: 'req-42', projectId: 'p1' }, () =>
      logger.child({ component: 'c' }).info('hello'),
    );
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.equal(line.service, 'svc');
    assert.equal(line.component, 'c');
    assert.equal(line.request_id, 'req-42');
    assert.equal(line.project_id, 'p1');
  });
});
