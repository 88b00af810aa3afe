/** 10^k for k = 0..22, the powers of ten a double holds exactly. */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * x with 9 significant digits in JavaScript's shortest form: x scaled to a 9-digit integer, rounded
 * and scaled back by an exact power of ten (a quarter of the cost of toPrecision, whose result it
 * equals but for a last-digit tie now and then; both give back the same float4). Outside the range
 * the powers cover, toPrecision.
 */
function nineDigits(x: number): string {
  const a = Math.abs(x);
  if (a === 0) return '0';
  if (a >= 1e-13 && a < 1e8) {
    const p = POW10[8 - Math.floor(Math.log10(a))];
    if (p !== undefined) return String(Math.round(x * p) / p);
  }
  // Number() drops the trailing zeros of toPrecision.
  return String(Number(x.toPrecision(9)));
}

/**
 * The pgvector text form of a vector: '[0.1,-0.25,1e-7]'. Each number is written with at most 9
 * significant digits (pgvector stores float4, which 9 digits represent exactly) in JavaScript's
 * shortest form, so the literal is compact and loses nothing the column keeps. Throws RangeError on
 * an empty vector or a non-finite number (pgvector refuses both).
 */
export function vectorLiteral(v: readonly number[]): string {
  if (v.length === 0) throw new RangeError('a vector needs at least one dimension');
  let s = '[';
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new RangeError(`vector component ${i} is not a finite number`);
    }
    if (i > 0) s += ',';
    s += nineDigits(x);
  }
  return s + ']';
}

/**
 * pgvector's binary form of a vector (what its `vector_recv` reads): the dimensions and a reserved
 * zero as int16, then each component as a big-endian float4. node-postgres sends a Buffer parameter
 * in binary format, so a `$n::vector` parameter given this costs neither the text literal here nor
 * the parse of 9-digit numbers in PostgreSQL (about a tenth of memory-store's CPU per write at 384
 * dimensions). PGlite's client sends parameters as text: it gets vectorLiteral. Same refusals.
 */
export function vectorBinary(v: readonly number[]): Buffer {
  if (v.length === 0) throw new RangeError('a vector needs at least one dimension');
  if (v.length > 16_000) throw new RangeError('a vector has at most 16,000 dimensions');
  const b = Buffer.allocUnsafe(4 + 4 * v.length);
  b.writeInt16BE(v.length, 0);
  b.writeInt16BE(0, 2);
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new RangeError(`vector component ${i} is not a finite number`);
    }
    b.writeFloatBE(x, 4 + 4 * i);
  }
  return b;
}

/** A vector as a bound parameter for `?::vector`: binary for node-postgres, text otherwise (PGlite). */
export function vectorParam(v: readonly number[], binary: boolean): string | Buffer {
  return binary ? vectorBinary(v) : vectorLiteral(v);
}
