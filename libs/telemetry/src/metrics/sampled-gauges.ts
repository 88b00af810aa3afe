import type { Gauge } from 'prom-client';
import { METRICS } from './catalogue.ts';
import type { EngramMetrics } from './engram-metrics.ts';

/** The outbox as one cheap query sees it. */
export interface OutboxBacklog {
  readonly pending: number;
  /** Seconds since the oldest unpublished event was created; 0 when there is none. */
  readonly oldestAgeSeconds: number;
}

/** One connection pool at this instant. */
export interface PoolUsage {
  readonly pool: 'primary' | 'read';
  readonly used: number;
  readonly free: number;
  readonly pending: number;
  readonly max: number;
}

/**
 * How long a scrape waits for the outbox query. A scrape must answer even when the database does
 * not: past this the outbox gauges are left out of that scrape (absent, not a stale or false 0).
 */
export const OUTBOX_SAMPLE_TIMEOUT_MS = 1_000;

interface OutboxSampler {
  probe: (() => Promise<OutboxBacklog>) | undefined;
  running: Promise<OutboxBacklog> | undefined;
}

const outboxSamplers = new WeakMap<EngramMetrics, OutboxSampler>();
const poolProbes = new WeakMap<EngramMetrics, { probe: (() => readonly PoolUsage[]) | undefined }>();

/** Resolves to the value, or to undefined when it fails or takes longer than `ms`. */
function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

/**
 * Samples the outbox on every scrape through `probe` (both gauges share one query per scrape). At most
 * one probe runs at a time: a scrape that finds one still running (a slow database) waits for that
 * one, up to `timeoutMs`, instead of starting another. Returns the function that stops sampling.
 */
export function watchOutbox(
  metrics: EngramMetrics,
  probe: () => Promise<OutboxBacklog>,
  timeoutMs: number = OUTBOX_SAMPLE_TIMEOUT_MS,
): () => void {
  let sampler = outboxSamplers.get(metrics);
  if (sampler === undefined) {
    const s: OutboxSampler = { probe: undefined, running: undefined };
    const sample = (): Promise<OutboxBacklog | undefined> => {
      if (s.probe === undefined) return Promise.resolve(undefined);
      s.running ??= s.probe().finally(() => (s.running = undefined));
      return within(s.running, timeoutMs);
    };
    const sampled = (pick: (b: OutboxBacklog) => number) =>
      async function collect(this: Gauge<never>) {
        const backlog = await sample();
        if (backlog === undefined) this.remove();
        else this.set(pick(backlog));
      };
    metrics.gauge(
      METRICS.outboxPendingEvents,
      sampled((b) => b.pending),
    );
    metrics.gauge(
      METRICS.outboxOldestAge,
      sampled((b) => b.oldestAgeSeconds),
    );
    outboxSamplers.set(metrics, s);
    sampler = s;
  }
  const current = sampler;
  current.probe = probe;
  return () => {
    if (current.probe === probe) current.probe = undefined;
  };
}

/** Reports the connection pools on every scrape through `probe`. Returns the function that stops it. */
export function watchPools(metrics: EngramMetrics, probe: () => readonly PoolUsage[]): () => void {
  let holder = poolProbes.get(metrics);
  if (holder === undefined) {
    const h: { probe: (() => readonly PoolUsage[]) | undefined } = { probe: undefined };
    // Each gauge reads the pools in its own collect: the registry takes a gauge's values right after
    // its collect, so one collect filling all three would leave the others a scrape behind.
    const usage = () => h.probe?.() ?? [];
    metrics.gauge(METRICS.dbPoolConnections, function collect() {
      this.reset();
      for (const p of usage()) {
        this.set({ pool: p.pool, state: 'used' }, p.used);
        this.set({ pool: p.pool, state: 'free' }, p.free);
      }
    });
    metrics.gauge(METRICS.dbPoolPendingAcquires, function collect() {
      this.reset();
      for (const p of usage()) this.set({ pool: p.pool }, p.pending);
    });
    metrics.gauge(METRICS.dbPoolMaxConnections, function collect() {
      this.reset();
      for (const p of usage()) this.set({ pool: p.pool }, p.max);
    });
    poolProbes.set(metrics, h);
    holder = h;
  }
  const current = holder;
  current.probe = probe;
  return () => {
    if (current.probe === probe) current.probe = undefined;
  };
}
