import type { RateLimiter, RateLimits, RateLimitSubject, RateLimitVerdict } from './rate-limiter.ts';

interface Counter {
  window: number;
  count: number;
}

const MAX_COUNTERS = 100_000;

/**
 * Fixed-window counters in this process (embedded mode, or when no REDIS_URL is set). Each process
 * counts on its own: distributed without Redis, every service instance has its own budget.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly counters = new Map<string, Counter>();

  constructor(
    private readonly limits: RateLimits,
    private readonly now: () => number = Date.now,
  ) {}

  check(subject: RateLimitSubject): Promise<RateLimitVerdict> {
    return Promise.resolve(this.checkSync(subject));
  }

  /** The same decision, synchronously (also the fallback of the Redis limiter). */
  checkSync(subject: RateLimitSubject): RateLimitVerdict {
    const { windowMs, projectPerWindow, agentPerWindow } = this.limits;
    const t = this.now();
    const window = Math.floor(t / windowMs);
    const resetMs = (window + 1) * windowMs - t;
    if (this.counters.size > MAX_COUNTERS) this.evict(window);
    const project = this.counter(`p\u0000${subject.projectId}`, window);
    const agent = this.counter(`a\u0000${subject.projectId}\u0000${subject.agent}`, window);
    if (agent.count >= agentPerWindow)
      return { allowed: false, scope: 'agent', limit: agentPerWindow, remaining: 0, resetMs };
    if (project.count >= projectPerWindow)
      return { allowed: false, scope: 'project', limit: projectPerWindow, remaining: 0, resetMs };
    agent.count += 1;
    project.count += 1;
    const agentLeft = agentPerWindow - agent.count;
    const projectLeft = projectPerWindow - project.count;
    return agentLeft <= projectLeft
      ? { allowed: true, scope: 'agent', limit: agentPerWindow, remaining: agentLeft, resetMs }
      : { allowed: true, scope: 'project', limit: projectPerWindow, remaining: projectLeft, resetMs };
  }

  close(): Promise<void> {
    this.counters.clear();
    return Promise.resolve();
  }

  private counter(key: string, window: number): Counter {
    let c = this.counters.get(key);
    if (c === undefined || c.window !== window) {
      c = { window, count: 0 };
      this.counters.set(key, c);
    }
    return c;
  }

  private evict(window: number): void {
    for (const [k, c] of this.counters) if (c.window !== window) this.counters.delete(k);
    if (this.counters.size > MAX_COUNTERS) this.counters.clear();
  }
}
