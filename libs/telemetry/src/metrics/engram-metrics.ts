import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CollectFunction,
} from 'prom-client';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { METRICS, type MetricDef } from './catalogue.ts';

/**
 * The metrics of one registry, created from the catalogue on first use. Components take the metric
 * they record when they are wired, so a process exports what it actually does (the gateway has no
 * outbox gauge stuck at 0). One registry per process: in embedded mode the five services and the
 * gateway share it, and asking twice for a metric returns the same object (prom-client refuses to
 * register a name twice).
 */
export class EngramMetrics {
  constructor(readonly registry: Registry) {
    // The default metrics register under fixed names; a registry that has them keeps them.
    if (registry.getSingleMetric('process_cpu_user_seconds_total') === undefined) {
      collectDefaultMetrics({ register: registry });
    }
    const live = heapAfterGc();
    this.gauge(METRICS.heapAfterGc, function () {
      if (live.bytes !== undefined) this.set(live.bytes);
    });
  }

  counter<L extends string>(def: MetricDef<L, 'counter'>): Counter<L> {
    return (
      this.existing<Counter<L>>(def, Counter) ??
      new Counter({ ...this.config(def), registers: [this.registry] })
    );
  }

  /**
   * A gauge; `collect` (run on every scrape) is bound when the gauge is first created and kept
   * after that, so sampled gauges go through watchOutbox / watchPools, which own theirs.
   */
  gauge<L extends string>(def: MetricDef<L, 'gauge'>, collect?: CollectFunction<Gauge<L>>): Gauge<L> {
    return (
      this.existing<Gauge<L>>(def, Gauge) ??
      new Gauge({ ...this.config(def), registers: [this.registry], ...(collect ? { collect } : {}) })
    );
  }

  histogram<L extends string>(def: MetricDef<L, 'histogram'>): Histogram<L> {
    return (
      this.existing<Histogram<L>>(def, Histogram) ??
      new Histogram({
        ...this.config(def),
        buckets: [...(def.buckets ?? [])],
        registers: [this.registry],
      })
    );
  }

  /** The exposition text of every metric of the registry. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private config<L extends string>(def: MetricDef<L>) {
    return { name: def.name, help: def.help, labelNames: [...def.labels] };
  }

  private existing<M>(def: MetricDef, kind: typeof Counter | typeof Gauge | typeof Histogram): M | undefined {
    const found: unknown = this.registry.getSingleMetric(def.name);
    if (found === undefined) return undefined;
    if (!(found instanceof kind)) throw new Error(`metric ${def.name} is registered with another type`);
    return found as M;
  }
}

const byRegistry = new WeakMap<Registry, EngramMetrics>();

/** The EngramMetrics of `registry` (a new registry when absent), created on the first call. */
export function engramMetrics(registry: Registry = new Registry()): EngramMetrics {
  let metrics = byRegistry.get(registry);
  if (metrics === undefined) {
    metrics = new EngramMetrics(registry);
    byRegistry.set(registry, metrics);
  }
  return metrics;
}

let liveHeap: { bytes: number | undefined } | undefined;

/**
 * The heap outside the young generation as the process's full collections leave it, kept by one
 * observer per process. Read as the observer is told (just after the collection): what survived it,
 * plus the little promoted since, so a leak shows as a rising series while V8 growing or shrinking its
 * spaces (the resident memory's sawtooth) does not.
 */
function heapAfterGc(): { bytes: number | undefined } {
  if (liveHeap) return liveHeap;
  const state: { bytes: number | undefined } = { bytes: undefined };
  const observer = new PerformanceObserver((list) => {
    const major = list
      .getEntries()
      .some(
        (e) => (e as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR,
      );
    if (!major) return;
    state.bytes = getHeapSpaceStatistics()
      .filter((s) => s.space_name !== 'new_space' && s.space_name !== 'new_large_object_space')
      .reduce((sum, s) => sum + s.space_used_size, 0);
  });
  observer.observe({ entryTypes: ['gc'] });
  liveHeap = state;
  return state;
}
