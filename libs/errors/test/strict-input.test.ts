import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  decodeCursor,
  encodeCursor,
  isUuid,
  parseLimit,
  parseTimestamp,
  parseUuid,
  type FieldViolation,
} from '../src/index.ts';

const refused = (parse: (out: FieldViolation[]) => unknown, field: string) => {
  const out: FieldViolation[] = [];
  assert.equal(parse(out), undefined);
  assert.deepEqual(
    out.map((v) => [v.field, v.reason]),
    [[field, 'INVALID_VALUE']],
  );
};

describe('strict parsers of ids, timestamps, limits and cursors', () => {
  describe('parseUuid', () => {
    it('accepts canonical UUIDs of any version and answers them in lower case', () => {
      const out: FieldViolation[] = [];
      assert.equal(
        parseUuid('id', '01890A5D-AC96-774B-BCCE-B302099A8057', out),
        '01890a5d-ac96-774b-bcce-b302099a8057',
      );
      assert.equal(
        parseUuid('id', '00000000-0000-0000-0000-000000000000', out),
        '00000000-0000-0000-0000-000000000000',
      );
      assert.deepEqual(out, []);
    });

    it('refuses 36 dashes, almost-UUIDs and the forms PostgreSQL would also read', () => {
      for (const v of [
        '-'.repeat(36),
        '01890a5d-ac96-774b-bcce-b302099a805',
        '01890a5d-ac96-774b-bcce-b302099a8057a',
        '01890a5dac96774bbcceb302099a8057', // PostgreSQL accepts it; ids are written canonically
        '{01890a5d-ac96-774b-bcce-b302099a8057}',
        '01890a5d-ac96-774b-bcce-b302099a805g',
        ' 01890a5d-ac96-774b-bcce-b302099a8057',
        '01890a5d-ac96-774b-bcce-b302099a8057\n',
        '',
      ]) {
        assert.equal(isUuid(v), false, v);
        refused((out) => parseUuid('key_id', v, out), 'key_id');
      }
    });
  });

  describe('parseTimestamp', () => {
    it('accepts RFC 3339 with Z or an offset and fractions up to nanoseconds', () => {
      const out: FieldViolation[] = [];
      const at = (v: string) => parseTimestamp('since', v, out)?.toISOString();
      assert.equal(at('2024-02-29T12:00:00Z'), '2024-02-29T12:00:00.000Z');
      assert.equal(at('2024-02-29t12:00:00.123456789z'), '2024-02-29T12:00:00.123Z');
      assert.equal(at('2024-03-01T01:30:00+02:00'), '2024-02-29T23:30:00.000Z');
      assert.equal(at('0001-01-01T00:00:00Z'), '0001-01-01T00:00:00.000Z');
      assert.equal(at('0099-06-01T00:00:00Z'), '0099-06-01T00:00:00.000Z');
      assert.equal(at('9999-12-31T23:59:59.999Z'), '9999-12-31T23:59:59.999Z');
      assert.deepEqual(out, []);
    });

    it('refuses days the month does not have, which new Date() would roll over', () => {
      for (const v of [
        '2024-02-30T00:00:00Z',
        '2023-02-29T00:00:00Z',
        '1900-02-29T00:00:00Z',
        '2024-04-31T00:00:00Z',
        '2024-00-10T00:00:00Z',
        '1970-13-01T00:00:00Z',
        '2024-01-00T00:00:00Z',
        '2024-01-01T24:00:00Z',
        '2024-01-01T23:60:00Z',
        '2024-12-31T23:59:60Z',
        '2024-01-01T00:00:00+24:00',
        '2024-01-01T00:00:00+01:60',
      ]) {
        refused((out) => parseTimestamp('since', v, out), 'since');
      }
    });

    it('refuses what is not RFC 3339 or falls outside years 1 to 9999', () => {
      for (const v of [
        '',
        'NaN',
        'yesterday',
        '1',
        '2024-01-01',
        '2024-01-01T00:00Z',
        '2024-01-01 00:00:00Z',
        '2024-01-01T00:00:00',
        '2024-01-01T00:00:00.Z',
        '2024-01-01T00:00:00.1234567890Z',
        '10000-01-01T00:00:00Z',
        '+010000-01-01T00:00:00Z',
        '0000-01-01T00:00:00Z',
        '0001-01-01T00:30:00+01:00',
        '9999-12-31T23:30:00-01:00',
        '２０２４-01-01T00:00:00Z',
        '2024-01-01T00:00:00Z\u0000',
      ]) {
        refused((out) => parseTimestamp('until', v, out), 'until');
      }
    });

    it('agrees with the calendar for any date (property)', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 9999 }),
          fc.integer({ min: 1, max: 12 }),
          fc.integer({ min: 1, max: 31 }),
          fc.integer({ min: 0, max: 23 }),
          (year, month, day, hour) => {
            const pad = (n: number, w = 2) => String(n).padStart(w, '0');
            const text = `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:07:09Z`;
            const probe = new Date(0);
            probe.setUTCFullYear(year, month - 1, day);
            const real = probe.getUTCDate() === day; // the day did not roll over into the next month
            const parsed = parseTimestamp('at', text, []);
            assert.equal(parsed !== undefined, real, text);
            if (parsed) assert.equal(parsed.toISOString(), `${text.slice(0, -1)}.000Z`);
          },
        ),
      );
    });

    it('reads every instant it writes (property)', () => {
      const min = new Date(0).setUTCFullYear(1, 0, 1);
      fc.assert(
        fc.property(fc.integer({ min, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }), (ms) => {
          const d = new Date(ms);
          assert.equal(parseTimestamp('at', d.toISOString(), [])?.getTime(), ms);
        }),
      );
    });
  });

  describe('parseLimit', () => {
    const range = { min: 1, max: 200, fallback: 50 };
    it('answers the fallback when absent and the value when in range', () => {
      const out: FieldViolation[] = [];
      assert.equal(parseLimit('limit', undefined, range, out), 50);
      assert.equal(parseLimit('limit', 1, range, out), 1);
      assert.equal(parseLimit('limit', 200, range, out), 200);
      assert.deepEqual(out, []);
    });

    it('refuses zero, negatives, fractions, NaN, infinities and huge numbers', () => {
      for (const v of [0, -1, 201, 1.5, Number.NaN, Infinity, -Infinity, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
        const out: FieldViolation[] = [];
        assert.equal(parseLimit('top_k', v, range, out), 50);
        assert.deepEqual(
          out.map((x) => x.field),
          ['top_k'],
        );
      }
    });
  });

  describe('cursors', () => {
    it('decode what encodeCursor wrote, for any text (property)', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
          const out: FieldViolation[] = [];
          assert.equal(decodeCursor('cursor', encodeCursor(text), out), text);
          assert.deepEqual(out, []);
        }),
      );
    });

    it('refuse padding, other alphabets, non-canonical trailing bits, invalid UTF-8 and huge cursors', () => {
      for (const v of [
        'YQ==', // padded
        'a+b/',
        'not a cursor',
        '%25%25',
        'YR', // "a" is YQ: R sets bits that do not decode
        Buffer.from([0xff, 0xfe, 0x80]).toString('base64url'),
        Buffer.from([0xed, 0xa0, 0x80]).toString('base64url'), // a UTF-16 surrogate in UTF-8
        'A'.repeat(5000),
      ]) {
        refused((out) => decodeCursor('cursor', v, out), 'cursor');
      }
    });
  });
});
