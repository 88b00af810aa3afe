/**
 * mulberry32: a small seeded generator of uniform numbers in [0, 1). The one copy for everything
 * that must draw the same sequence on every run: the injection model's training order (its output,
 * model/injection-model.data.ts, depends on this exact arithmetic), the test embedding stand-in and
 * the benchmark corpora. It lives here because training is production code, which may import no
 * test library; tests and scripts may import any library. Not for secrets.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
