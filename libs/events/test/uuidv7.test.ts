import assert from 'node:assert/strict';
import { uuidv7 } from '../src/index.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  it('has version 7, the RFC variant, and the current time in its first 48 bits', () => {
    const before = Date.now();
    const id = uuidv7();
    const after = Date.now();
    assert.match(id, UUID_V7);
    const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    assert.ok(ms >= before && ms <= after + 1, `timestamp ${ms} not in [${before}, ${after}]`);
  });

  it('is strictly increasing and unique within a process, even many per millisecond', () => {
    const ids = Array.from({ length: 50_000 }, () => uuidv7());
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} !< ${ids[i]}`);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, UUID_V7);
  });
});
