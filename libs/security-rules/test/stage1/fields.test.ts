import assert from 'node:assert/strict';
import { InvalidArgumentError } from '@engram/errors';
import { MEMORY_TYPES, SCOPES, TRUST_LEVELS } from '@engram/memory-model';
import { assertValidWrite, validateWrite } from '../../src/index.ts';
import { codes, limits, violationsOf, write } from './helpers.ts';

describe('stage 1: request fields', () => {
  it('accepts a write that uses every field correctly', () => {
    const v = violationsOf({
      memory_type: 'procedural',
      scope: 'agent-shared',
      shared_with: ['agent-2', 'team:ops', 'bot@example.com', 'a.b_c-d'],
      trust_level: 'internal',
      namespace: 'payments',
      metadata: { source: 'ci' },
      session_id: 's-1',
      sequence_number: 0,
      entity_id: 'service:payments',
      steps: ['check the flag', 'deploy\nagain'],
      trigger_conditions: ['deploy failed'],
      error_pattern: 'E1234.*timeout',
      severity: 'high',
      source_trajectory_id: 'traj-9',
    });
    assert.deepEqual(v, []);
  });

  describe('agent_id', () => {
    it('is required', () => {
      assert.deepEqual(codes(violationsOf({ agent_id: undefined })), ['agent_id:REQUIRED']);
      assert.deepEqual(codes(violationsOf({ agent_id: '' })), ['agent_id:REQUIRED']);
    });
    it('accepts 128 characters and refuses 129', () => {
      assert.deepEqual(violationsOf({ agent_id: 'a'.repeat(128) }), []);
      assert.deepEqual(codes(violationsOf({ agent_id: 'a'.repeat(129) })), ['agent_id:TOO_LONG']);
    });
    it('is limited to [A-Za-z0-9._:@-]', () => {
      for (const bad of ['a b', 'a/b', 'ägent', 'a\u0000', 'a#1', 'a\n']) {
        assert.deepEqual(codes(violationsOf({ agent_id: bad })), ['agent_id:INVALID_CHARACTERS'], bad);
      }
      assert.deepEqual(codes(violationsOf({ agent_id: 7 })), ['agent_id:INVALID_VALUE']);
    });
  });

  describe('session_id and entity_id (column widths)', () => {
    it('session_id: 64 ok, 65 refused', () => {
      assert.deepEqual(violationsOf({ session_id: 's'.repeat(64) }), []);
      assert.deepEqual(codes(violationsOf({ session_id: 's'.repeat(65) })), ['session_id:TOO_LONG']);
    });
    it('entity_id: 128 ok, 129 refused', () => {
      assert.deepEqual(violationsOf({ entity_id: 'e'.repeat(128) }), []);
      assert.deepEqual(codes(violationsOf({ entity_id: 'e'.repeat(129) })), ['entity_id:TOO_LONG']);
    });
    it('an explicitly empty optional id is refused', () => {
      assert.deepEqual(codes(violationsOf({ session_id: '' })), ['session_id:REQUIRED']);
    });
    it('other ids follow the id alphabet and 128 limit', () => {
      assert.deepEqual(codes(violationsOf({ namespace: 'a b' })), ['namespace:INVALID_CHARACTERS']);
      assert.deepEqual(codes(violationsOf({ source_trajectory_id: 't'.repeat(129) })), [
        'source_trajectory_id:TOO_LONG',
      ]);
      assert.deepEqual(codes(violationsOf({ entity_id: 'x y' })), ['entity_id:INVALID_CHARACTERS']);
    });
  });

  describe('enumerations', () => {
    it('accepts every memory type, scope and trust level', () => {
      for (const memory_type of MEMORY_TYPES) assert.deepEqual(violationsOf({ memory_type }), []);
      for (const scope of SCOPES) assert.deepEqual(violationsOf({ scope }), []);
      for (const trust_level of TRUST_LEVELS) assert.deepEqual(violationsOf({ trust_level }), []);
    });
    it('refuses anything else and lists the allowed values', () => {
      const v = violationsOf({ memory_type: 'Standard', scope: 'public', trust_level: 'root' });
      assert.deepEqual(codes(v), [
        'memory_type:INVALID_VALUE',
        'scope:INVALID_VALUE',
        'trust_level:INVALID_VALUE',
      ]);
      assert.match(v[1]!.description, /agent-private, agent-shared, global/);
      assert.deepEqual(codes(violationsOf({ scope: '' })), ['scope:INVALID_VALUE']);
      assert.deepEqual(codes(violationsOf({ memory_type: 3 })), ['memory_type:INVALID_VALUE']);
    });
  });

  describe('shared_with', () => {
    it('is allowed with scope agent-shared only', () => {
      assert.deepEqual(violationsOf({ scope: 'agent-shared', shared_with: ['b'] }), []);
      assert.deepEqual(codes(violationsOf({ scope: 'global', shared_with: ['b'] })), [
        'shared_with:INVALID_VALUE',
      ]);
      assert.deepEqual(codes(violationsOf({ shared_with: ['b'] })), ['shared_with:INVALID_VALUE']);
      assert.deepEqual(codes(violationsOf({ memory_type: 'strategy', shared_with: ['b'] })), [
        'shared_with:INVALID_VALUE',
      ]);
    });
    it('an empty list is the same as none', () => {
      assert.deepEqual(violationsOf({ scope: 'global', shared_with: [] }), []);
    });
    it('holds at most 100 valid agent ids', () => {
      const ids = (n: number) => Array.from({ length: n }, (_, i) => `agent-${i}`);
      assert.deepEqual(violationsOf({ scope: 'agent-shared', shared_with: ids(100) }), []);
      assert.deepEqual(codes(violationsOf({ scope: 'agent-shared', shared_with: ids(101) })), [
        'shared_with:TOO_LONG',
      ]);
      assert.deepEqual(
        codes(violationsOf({ scope: 'agent-shared', shared_with: ['ok', 'ok', 'b a d', ''] })),
        ['shared_with[2]:INVALID_CHARACTERS', 'shared_with[3]:REQUIRED'],
      );
      assert.deepEqual(codes(violationsOf({ scope: 'agent-shared', shared_with: 'agent-2' })), [
        'shared_with:INVALID_VALUE',
      ]);
    });
  });

  describe('steps and trigger_conditions', () => {
    for (const field of ['steps', 'trigger_conditions']) {
      it(`${field}: at most 100 strings of at most 2000 characters without control characters`, () => {
        assert.deepEqual(violationsOf({ [field]: Array.from({ length: 100 }, () => 's'.repeat(2000)) }), []);
        assert.deepEqual(codes(violationsOf({ [field]: Array.from({ length: 101 }, () => 's') })), [
          `${field}:TOO_LONG`,
        ]);
        assert.deepEqual(codes(violationsOf({ [field]: ['a', 's'.repeat(2001)] })), [`${field}[1]:TOO_LONG`]);
        assert.deepEqual(codes(violationsOf({ [field]: ['a\u001b[31m'] })), [
          `${field}[0]:CONTROL_CHARACTER`,
        ]);
        assert.deepEqual(codes(violationsOf({ [field]: ['a', 2] })), [`${field}[1]:INVALID_VALUE`]);
        assert.deepEqual(codes(violationsOf({ [field]: 'one' })), [`${field}:INVALID_VALUE`]);
      });
    }
  });

  describe('error_pattern and severity', () => {
    it('error_pattern: up to 2000 characters, line breaks allowed', () => {
      assert.deepEqual(violationsOf({ error_pattern: 'x'.repeat(1999) + '\n' }), []);
      assert.deepEqual(codes(violationsOf({ error_pattern: 'x'.repeat(2001) })), ['error_pattern:TOO_LONG']);
      assert.deepEqual(codes(violationsOf({ error_pattern: 'x\u0000' })), [
        'error_pattern:CONTROL_CHARACTER',
      ]);
      assert.deepEqual(codes(violationsOf({ error_pattern: 5 })), ['error_pattern:INVALID_VALUE']);
    });
    it('severity: up to 32 characters, no control character at all', () => {
      assert.deepEqual(violationsOf({ severity: 's'.repeat(32) }), []);
      assert.deepEqual(codes(violationsOf({ severity: 's'.repeat(33) })), ['severity:TOO_LONG']);
      assert.deepEqual(codes(violationsOf({ severity: 'high\n' })), ['severity:CONTROL_CHARACTER']);
    });
  });

  describe('sequence_number', () => {
    it('is a non-negative safe integer', () => {
      for (const ok of [0, 1, Number.MAX_SAFE_INTEGER])
        assert.deepEqual(violationsOf({ sequence_number: ok }), []);
      for (const bad of [-1, 1.5, NaN, Infinity, Number.MAX_SAFE_INTEGER + 1, '3', true]) {
        assert.deepEqual(
          codes(violationsOf({ sequence_number: bad })),
          ['sequence_number:INVALID_VALUE'],
          String(bad),
        );
      }
    });
  });

  describe('collecting', () => {
    it('reports problems in several fields at once', () => {
      const v = violationsOf({ content: '', agent_id: 'a b', scope: 'x', session_id: 's'.repeat(65) });
      assert.deepEqual(codes(v), [
        'content:REQUIRED',
        'agent_id:INVALID_CHARACTERS',
        'scope:INVALID_VALUE',
        'session_id:TOO_LONG',
      ]);
    });

    it('caps the list at 20 violations', () => {
      const v = violationsOf({ scope: 'agent-shared', shared_with: Array.from({ length: 100 }, () => '!') });
      assert.equal(v.length, 20);
      assert.equal(v[0]!.field, 'shared_with[0]');
      assert.equal(v[19]!.field, 'shared_with[19]');
    });

    it('treats a non-object request as an empty one', () => {
      for (const input of [null, undefined, 5, 'x', []]) {
        assert.deepEqual(codes(validateWrite(input as never, limits)), [
          'content:REQUIRED',
          'agent_id:REQUIRED',
        ]);
      }
    });

    it('every violation carries field, description and reason', () => {
      const v = violationsOf({ content: '\u0000', metadata: { a: NaN } });
      for (const x of v) {
        assert.ok(x.field.length > 0 && x.description.length > 0 && (x.reason ?? '').length > 0);
      }
    });
  });

  describe('assertValidWrite', () => {
    it('passes a valid write', () => {
      assertValidWrite(write(), limits);
    });

    it('throws InvalidArgumentError with the violations', () => {
      assert.throws(
        () => assertValidWrite(write({ content: '', agent_id: '' }), limits),
        (err: unknown) => {
          assert.ok(err instanceof InvalidArgumentError);
          assert.equal(err.message, 'request failed validation');
          assert.equal(err.code, 'INVALID_ARGUMENT');
          assert.deepEqual(codes(err.fieldViolations), ['content:REQUIRED', 'agent_id:REQUIRED']);
          return true;
        },
      );
    });
  });
});
