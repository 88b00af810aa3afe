import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  checkAuditDetails,
  FORBIDDEN_DETAIL_KEYS,
  InvalidAuditEventError,
  MAX_DETAILS_BYTES,
} from '../src/index.ts';

/** Spellings a careless caller might use: camelCase, upper case, dashes. */
const forbiddenKey = fc
  .tuple(fc.constantFrom(...FORBIDDEN_DETAIL_KEYS), fc.constantFrom('snake', 'camel', 'upper', 'dash'))
  .map(([k, style]) =>
    style === 'camel'
      ? k.replace(/_(.)/g, (_, c: string) => c.toUpperCase())
      : style === 'upper'
        ? k.toUpperCase()
        : style === 'dash'
          ? k.replace(/_/g, '-')
          : k,
  );

const safeKey = fc.stringMatching(/^[a-z]{1,8}_(id|count|hash|type)$/);
const leaf = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null));
const safeDetails = fc.letrec((tie) => ({
  obj: fc.dictionary(
    safeKey,
    fc.oneof({ depthSize: 'small' }, leaf, tie('obj'), fc.array(tie('obj'), { maxLength: 3 })),
    {
      maxKeys: 5,
    },
  ),
})).obj;

/** Puts `key: value` somewhere inside details: top level, nested object, or an object inside an array. */
function plant(details: Record<string, unknown>, key: string, where: number): Record<string, unknown> {
  if (where === 0) return { ...details, [key]: 'x' };
  if (where === 1) return { ...details, nested_id: { deeper_id: { [key]: 'x' } } };
  return { ...details, items_id: [{ ok_id: 1 }, { [key]: { a: 1 } }] };
}

describe('audit details guard', () => {
  it('accepts small details made of ids, counts, hashes and types', () => {
    fc.assert(
      fc.property(safeDetails, (d) => {
        assert.equal(checkAuditDetails(d), JSON.stringify(d));
      }),
    );
  });

  it('refuses content, api keys, secrets and passwords at any depth, however spelled', () => {
    fc.assert(
      fc.property(safeDetails, forbiddenKey, fc.integer({ min: 0, max: 2 }), (d, key, where) => {
        assert.throws(() => checkAuditDetails(plant(d, key, where)), InvalidAuditEventError);
      }),
    );
  });

  it('allows keys that only contain a forbidden word (content_hash, secret_count)', () => {
    assert.doesNotThrow(() =>
      checkAuditDetails({ content_hash: 'ab', secret_count: 2, password_reset: false }),
    );
  });

  it('refuses non-objects, cycles and oversized details', () => {
    for (const bad of [null, 'text', 3, ['a']])
      assert.throws(() => checkAuditDetails(bad), InvalidAuditEventError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self_ref = cyclic;
    assert.throws(() => checkAuditDetails(cyclic), InvalidAuditEventError);
    assert.throws(() => checkAuditDetails({ big: 'x'.repeat(MAX_DETAILS_BYTES) }), InvalidAuditEventError);
    const shared = { a: 1 };
    assert.doesNotThrow(() => checkAuditDetails({ one: shared, two: shared }));
  });
});
