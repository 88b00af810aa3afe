import assert from 'node:assert/strict';
import { validateWrite } from '../../src/index.ts';
import { codes, limits, violationsOf, write } from './helpers.ts';

/** {"k1":{"k2":...{"kN": leaf}}}: the leaf sits at depth N. */
function nested(levels: number, leaf: unknown = 1): Record<string, unknown> {
  let value: unknown = leaf;
  for (let i = levels; i >= 1; i--) value = { [`k${i}`]: value };
  return value as Record<string, unknown>;
}

/** An object with n keys at the top level. */
function flat(n: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) o[`key${i}`] = i;
  return o;
}

describe('stage 1: metadata', () => {
  it('accepts absent, null and empty metadata, and ordinary JSON', () => {
    assert.deepEqual(violationsOf({ metadata: undefined }), []);
    assert.deepEqual(violationsOf({ metadata: null }), []);
    assert.deepEqual(violationsOf({ metadata: {} }), []);
    assert.deepEqual(
      violationsOf({ metadata: { source: 'ci', tags: ['a', 'b'], n: 1.5, ok: true, none: null } }),
      [],
    );
  });

  it('must be a plain JSON object', () => {
    for (const metadata of ['x', 1, true, [], [{ a: 1 }], new Date(0), new Map()]) {
      assert.deepEqual(codes(violationsOf({ metadata })), ['metadata:INVALID_VALUE']);
    }
  });

  it('accepts an object with a null prototype', () => {
    const m = Object.create(null) as Record<string, unknown>;
    m['a'] = 1;
    assert.deepEqual(violationsOf({ metadata: m }), []);
  });

  describe('depth (top-level values are depth 1)', () => {
    it('accepts depth 5 and refuses depth 6', () => {
      assert.deepEqual(violationsOf({ metadata: nested(5) }), []);
      const v = violationsOf({ metadata: nested(6) });
      assert.deepEqual(codes(v), ['metadata.k1.k2.k3.k4.k5.k6:TOO_DEEP']);
    });

    it('counts arrays as levels', () => {
      // metadata.a (1) -> [..] elements (2) -> ... five containers deep puts the leaf at 5
      assert.deepEqual(violationsOf({ metadata: { a: [[[[1]]]] } }), []);
      assert.deepEqual(codes(violationsOf({ metadata: { a: [[[[[1]]]]] } })), [
        'metadata.a[0][0][0][0][0]:TOO_DEEP',
      ]);
    });

    it('accepts an empty container at depth 5 but not at depth 6', () => {
      assert.deepEqual(violationsOf({ metadata: nested(5, {}) }), []);
      assert.deepEqual(codes(violationsOf({ metadata: nested(6, []) })), [
        'metadata.k1.k2.k3.k4.k5.k6:TOO_DEEP',
      ]);
    });

    it('honours a configured depth', () => {
      const v = validateWrite(write({ metadata: nested(3) }), { ...limits, metadataMaxDepth: 2 });
      assert.deepEqual(codes(v), ['metadata.k1.k2.k3:TOO_DEEP']);
    });

    it('survives 10,000 levels of nesting without recursion', () => {
      const v = violationsOf({ metadata: nested(10_000) });
      assert.deepEqual(codes(v), ['metadata.k1.k2.k3.k4.k5.k6:TOO_DEEP']);
      let arr: unknown = 1;
      for (let i = 0; i < 10_000; i++) arr = [arr];
      assert.deepEqual(codes(violationsOf({ metadata: { a: arr } })), ['metadata.a[0][0][0][0][0]:TOO_DEEP']);
    });
  });

  describe('key count (every key at every level)', () => {
    it('accepts 50 keys and refuses 51', () => {
      assert.deepEqual(violationsOf({ metadata: flat(50) }), []);
      assert.deepEqual(codes(violationsOf({ metadata: flat(51) })), ['metadata:TOO_MANY_KEYS']);
    });

    it('counts nested keys and keys of objects inside arrays', () => {
      // 1 (list) + 49 * 1 = 50 keys
      const ok = { list: Array.from({ length: 49 }, (_, i) => ({ [`k${i}`]: i })) };
      assert.deepEqual(violationsOf({ metadata: ok }), []);
      const over = { list: Array.from({ length: 50 }, (_, i) => ({ [`k${i}`]: i })) };
      assert.deepEqual(codes(violationsOf({ metadata: over })), ['metadata:TOO_MANY_KEYS']);
      const deep = { a: flat(25), b: flat(24) }; // 2 + 49 = 51
      assert.deepEqual(codes(violationsOf({ metadata: deep })), ['metadata:TOO_MANY_KEYS']);
    });

    it('does not count array indexes as keys', () => {
      assert.deepEqual(violationsOf({ metadata: { a: Array.from({ length: 500 }, (_, i) => i) } }), []);
    });

    it('honours a configured count', () => {
      const v = validateWrite(write({ metadata: flat(3) }), { ...limits, metadataMaxKeys: 2 });
      assert.deepEqual(codes(v), ['metadata:TOO_MANY_KEYS']);
    });
  });

  describe('keys', () => {
    it('refuses an empty key', () => {
      assert.deepEqual(codes(violationsOf({ metadata: { a: { '': 1 } } })), ['metadata.a:INVALID_VALUE']);
    });

    it('accepts a 256-character key and refuses 257', () => {
      assert.deepEqual(violationsOf({ metadata: { ['k'.repeat(256)]: 1 } }), []);
      const v = violationsOf({ metadata: { ['k'.repeat(257)]: 1 } });
      assert.deepEqual(codes(v), ['metadata:TOO_LONG']);
      assert.ok(!v[0]!.description.includes('kkkk'), 'the key is not echoed');
    });

    it('refuses any control character in a key, tab and newline included', () => {
      for (const key of ['a\u0000', 'a\tb', 'a\nb', '\u009b']) {
        assert.deepEqual(codes(violationsOf({ metadata: { [key]: 1 } })), ['metadata:CONTROL_CHARACTER']);
      }
    });

    it('refuses an unpaired surrogate in a key', () => {
      assert.deepEqual(codes(violationsOf({ metadata: { 'a\ud800': 1 } })), ['metadata:INVALID_CHARACTERS']);
    });

    it('quotes unusual keys in paths', () => {
      const v = violationsOf({ metadata: { 'a.b c': 'x\u0000' } });
      assert.deepEqual(codes(v), ['metadata["a.b c"]:CONTROL_CHARACTER']);
    });
  });

  describe('values', () => {
    it('applies the content character rules to strings (line breaks allowed)', () => {
      assert.deepEqual(violationsOf({ metadata: { a: 'x\ny\tz\r' } }), []);
      assert.deepEqual(codes(violationsOf({ metadata: { a: { b: ['ok', 'bad\u0007'] } } })), [
        'metadata.a.b[1]:CONTROL_CHARACTER',
      ]);
      assert.deepEqual(codes(violationsOf({ metadata: { a: '\udfff' } })), ['metadata.a:INVALID_CHARACTERS']);
    });

    it('bounds a string value by the content limit', () => {
      const tight = { ...limits, contentMaxLength: 5 };
      assert.deepEqual(codes(validateWrite(write({ content: 'hi', metadata: { a: '123456' } }), tight)), [
        'metadata.a:TOO_LONG',
      ]);
    });

    it('refuses values that are not JSON', () => {
      const cases: unknown[] = [undefined, NaN, Infinity, () => 1, Symbol('s'), 10n, new Date(0)];
      for (const value of cases) {
        assert.deepEqual(codes(violationsOf({ metadata: { a: value } })), ['metadata.a:INVALID_VALUE']);
      }
      // eslint-disable-next-line no-sparse-arrays
      assert.deepEqual(codes(violationsOf({ metadata: { a: [1, , 3] } })), ['metadata.a[1]:INVALID_VALUE']);
    });

    it('refuses cycles and repeated references instead of looping', () => {
      const cyclic: Record<string, unknown> = { a: 1 };
      cyclic['self'] = cyclic;
      assert.deepEqual(codes(violationsOf({ metadata: cyclic })), ['metadata.self:INVALID_VALUE']);
      const shared = { x: 1 };
      assert.deepEqual(codes(violationsOf({ metadata: { a: shared, b: shared } })), [
        'metadata.b:INVALID_VALUE',
      ]);
    });
  });

  it('reports several metadata problems at once', () => {
    const v = violationsOf({ metadata: { a: 'x\u0000', b: NaN, ...nested(6) } });
    assert.deepEqual(codes(v), [
      'metadata.a:CONTROL_CHARACTER',
      'metadata.b:INVALID_VALUE',
      'metadata.k1.k2.k3.k4.k5.k6:TOO_DEEP',
    ]);
  });
});
