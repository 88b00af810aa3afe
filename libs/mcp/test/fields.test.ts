import assert from 'node:assert/strict';
import {
  MEMORY_TYPES as ENGRAM_MEMORY_TYPES,
  SCOPES as ENGRAM_SCOPES,
  TRUST_LEVELS as ENGRAM_TRUST,
} from '@engram/security-rules';
import { MEMORY_TYPES, SCOPES, TRUST_LEVELS } from '../src/fields.ts';

describe('@engram/mcp tool fields', () => {
  it('offers exactly the memory types, scopes and trust levels Engram accepts', () => {
    assert.deepEqual([...MEMORY_TYPES], [...ENGRAM_MEMORY_TYPES]);
    assert.deepEqual([...SCOPES], [...ENGRAM_SCOPES]);
    assert.deepEqual([...TRUST_LEVELS], [...ENGRAM_TRUST]);
  });
});
