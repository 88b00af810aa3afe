import assert from 'node:assert/strict';
import { HashEmbedder, vectorBinary, vectorLiteral, vectorParam } from '../src/index.ts';

describe('vectorLiteral', () => {
  it('writes the compact pgvector text form', () => {
    assert.equal(vectorLiteral([0.1, -0.25, 1, 0]), '[0.1,-0.25,1,0]');
    assert.equal(vectorLiteral([-0]), '[0]');
    assert.equal(vectorLiteral([1e-7, 123456789012]), '[1e-7,123456789000]');
  });

  it('keeps float4 precision (9 significant digits) and round-trips through float4', () => {
    const v = new HashEmbedder({ dimensions: 64 }).embedText('payments deploy failed with E1234');
    const parsed = vectorLiteral(v).slice(1, -1).split(',').map(Number);
    assert.equal(parsed.length, 64);
    parsed.forEach((x, i) => assert.equal(Math.fround(x), Math.fround(v[i]!)));
    assert.ok(vectorLiteral(v).length < JSON.stringify(v).length, 'more compact than full doubles');
  });

  it('gives back every float4 exactly, from 1e-20 to 1e20, and the 9-digit value toPrecision gives', () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const xs = Array.from({ length: 20_000 }, () => Math.fround((next() - 0.5) * 10 ** (next() * 40 - 20)));
    const parsed = vectorLiteral(xs).slice(1, -1).split(',').map(Number);
    parsed.forEach((x, i) => {
      assert.equal(Math.fround(x), xs[i], `component ${i}`);
      assert.equal(Math.fround(x), Math.fround(Number(xs[i]!.toPrecision(9))));
    });
  });

  it('refuses what pgvector refuses', () => {
    assert.throws(() => vectorLiteral([]), RangeError);
    assert.throws(() => vectorLiteral([1, NaN]), RangeError);
    assert.throws(() => vectorLiteral([Infinity]), RangeError);
  });
});

describe('vectorBinary', () => {
  it("writes pgvector's binary form: int16 dimensions, int16 zero, big-endian float4 components", () => {
    const b = vectorBinary([0.5, -0.25, 1e-7]);
    assert.equal(b.length, 4 + 3 * 4);
    assert.equal(b.readInt16BE(0), 3);
    assert.equal(b.readInt16BE(2), 0);
    assert.deepEqual(
      [b.readFloatBE(4), b.readFloatBE(8), b.readFloatBE(12)],
      [0.5, -0.25, Math.fround(1e-7)],
    );
  });

  it('refuses what pgvector refuses, and vectorParam picks the form', () => {
    assert.throws(() => vectorBinary([]), RangeError);
    assert.throws(() => vectorBinary([1, NaN]), RangeError);
    assert.throws(() => vectorBinary(new Array<number>(16_001).fill(1)), RangeError);
    assert.ok(Buffer.isBuffer(vectorParam([1, 2], true)));
    assert.equal(vectorParam([1, 2], false), '[1,2]');
  });
});
