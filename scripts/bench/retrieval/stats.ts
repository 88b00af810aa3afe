export interface LoadResult {
  readonly count: number;
  readonly errors: number;
  readonly seconds: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  /** Operations per second over the whole run (all clients). */
  readonly perSecond: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** The median (the mean of the two middle values for an even count); NaN for none. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Runs `total` operations with `clients` concurrent loops; each operation's latency is recorded in
 * milliseconds. `op(i)` returns false for a failed operation (counted, not timed).
 */
export async function runLoad(
  clients: number,
  total: number,
  op: (i: number) => Promise<boolean>,
  itemsPerOp = 1,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        const ok = await op(i);
        if (ok) latencies.push(performance.now() - t0);
        else errors++;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    count: total,
    errors,
    seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    perSecond: ((total - errors) * itemsPerOp) / seconds,
  };
}
