import assert from 'node:assert/strict';
import { validateId } from '../../src/index.ts';

describe('stage 1: validateId', () => {
  it('accepts the id alphabet up to the limit', () => {
    assert.deepEqual(validateId('run_id', 'Run-01.a_b:c@d', 64), []);
    assert.deepEqual(validateId('memory_id', '0190f3b2-7c1e-7a00-8000-000000000000', 36), []);
  });

  it('refuses absent, empty, non-string, too long and foreign characters', () => {
    assert.deepEqual(
      validateId('run_id', undefined, 8).map((v) => v.reason),
      ['REQUIRED'],
    );
    assert.deepEqual(
      validateId('run_id', '', 8).map((v) => v.reason),
      ['REQUIRED'],
    );
    assert.deepEqual(
      validateId('run_id', 12, 8).map((v) => v.reason),
      ['INVALID_VALUE'],
    );
    assert.deepEqual(
      validateId('run_id', '123456789', 8).map((v) => v.reason),
      ['TOO_LONG'],
    );
    assert.deepEqual(
      validateId('run_id', 'a+b', 8).map((v) => v.reason),
      ['INVALID_CHARACTERS'],
    );
  });

  it('reports length and characters together, naming the field and position only', () => {
    const v = validateId('run_id', 'x'.repeat(10) + ' secret', 8);
    assert.deepEqual(
      v.map((x) => `${x.field}:${x.reason ?? ''}`),
      ['run_id:TOO_LONG', 'run_id:INVALID_CHARACTERS'],
    );
    assert.match(v[1]!.description, /position 10/);
    assert.ok(!v[1]!.description.includes('secret'));
  });
});
