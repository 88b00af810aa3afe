import assert from 'node:assert/strict';
import fc from 'fast-check';
import { validateWrite } from '../../src/index.ts';
import { scanText, scanUnits } from '../../src/stage1/text-scan.ts';
import { limits, write } from './helpers.ts';

const isControl = (cp: number) =>
  (cp < 0x20 && cp !== 0x09 && cp !== 0x0a && cp !== 0x0d) || (cp >= 0x7f && cp <= 0x9f);

/** Any Unicode scalar value (no lone surrogates) that is not a refused control character. */
const allowedChar = fc
  .oneof(
    fc.constantFrom('\t', '\n', '\r'),
    fc.integer({ min: 0x20, max: 0x7e }),
    fc.integer({ min: 0xa0, max: 0xd7ff }),
    fc.integer({ min: 0xe000, max: 0x10ffff }),
  )
  .map((c) => (typeof c === 'string' ? c : String.fromCodePoint(c)));

const controlChar = fc
  .oneof(fc.integer({ min: 0, max: 0x1f }), fc.constant(0x7f), fc.integer({ min: 0x80, max: 0x9f }))
  .filter(isControl)
  .map((c) => String.fromCodePoint(c));

/** Text with at least one non-space character, at most `max` code points. */
const allowedText = (max: number) =>
  fc
    .array(allowedChar, { minLength: 0, maxLength: max - 1 })
    .map((chars) => 'x' + chars.join(''))
    .filter((s) => [...s].length <= max);

/** fc.anything with every exotic value it can build (null prototypes, boxed values, Map, typed arrays...). */
const hostile = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withNullPrototype: true,
  withObjectString: true,
  withSet: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

describe('stage 1: properties', () => {
  it('answers every text as its loop over the UTF-16 units does (the regular-expression fast path changes nothing)', () => {
    // Every code unit, alone, between letters, and after white space, in both line-break modes;
    // then random strings (at most 40 units: within the early answer for a text too long to fit).
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      for (const text of [ch, `ab${ch}cd`, ` ${ch}`]) {
        for (const lines of [true, false])
          assert.deepEqual(scanText(text, 4, lines), scanUnits(text, 4, lines));
      }
    }
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.integer({ min: 20, max: 50 }),
        fc.boolean(),
        (t, max, lines) => {
          assert.deepEqual(scanText(t, max, lines), scanUnits(t, max, lines));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('any text without control characters and within the length passes the content rule', () => {
    fc.assert(
      fc.property(allowedText(200), (content) => {
        assert.deepEqual(validateWrite(write({ content }), { ...limits, contentMaxLength: 200 }), []);
      }),
      { numRuns: 500 },
    );
  });

  it('any text with a control character injected anywhere fails with its position', () => {
    fc.assert(
      fc.property(allowedText(100), controlChar, fc.nat(), (text, bad, at) => {
        const chars = [...text];
        const pos = at % (chars.length + 1);
        chars.splice(pos, 0, bad);
        const v = validateWrite(write({ content: chars.join('') }), limits);
        assert.equal(v.length, 1);
        assert.equal(v[0]!.reason, 'CONTROL_CHARACTER');
        assert.ok(v[0]!.description.includes(`position ${pos} `), v[0]!.description);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary JSON requests and always returns a capped array', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        const v = validateWrite(input as never, limits);
        assert.ok(Array.isArray(v) && v.length <= 20);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary values in any field', () => {
    const fields = [
      'content',
      'agent_id',
      'memory_type',
      'scope',
      'shared_with',
      'trust_level',
      'namespace',
      'metadata',
      'session_id',
      'sequence_number',
      'entity_id',
      'steps',
      'trigger_conditions',
      'error_pattern',
      'severity',
      'source_trajectory_id',
    ];
    const request = fc.record(Object.fromEntries(fields.map((f) => [f, hostile])), {
      requiredKeys: [],
    });
    fc.assert(
      fc.property(request, (input) => {
        const v = validateWrite(input as never, limits);
        assert.ok(Array.isArray(v) && v.length <= 20);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary metadata and reports only metadata paths for it', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), hostile), (metadata) => {
        const v = validateWrite(write({ metadata }), limits);
        assert.ok(Array.isArray(v));
        for (const x of v) assert.ok(x.field.startsWith('metadata'), x.field);
      }),
      { numRuns: 500 },
    );
  });
});
