import type { RateLimiter, RateLimits, RateLimitSubject, RateLimitVerdict } from './rate-limiter.ts';

/** Default bound of the agent counters one window may hold (about 10 MB at most). */
export const DEFAULT_MAX_AGENT_COUNTERS = 100_000;

/**
 * Fixed-window counters in this process (embedded mode, or when no REDIS_URL is set). Each process
 * counts on its own: distributed without Redis, every service instance has its own budget.
 *
 * Memory is bounded without ever forgetting a budget that is being spent: a counter is created only
 * for an admitted request (a refusal only reads), so requests refused by the project budget cannot
 * fill the table with agent ids; the counters of a window are dropped together when the next window
 * starts (they are never read again); and at `maxAgentCounters` agents in one window a new agent is
 * admitted against its project's budget alone. Project counters are never dropped within their window.
 */
export class MemoryRateLimiter implements RateLimiter {
  private window = Number.NaN;
  /** projectId -> requests admitted in the current window. */
  private projects = new Map<string, number>();
  /** projectId NUL agent -> requests admitted in the current window. */
  private agents = new Map<string, number>();

  constructor(
    private readonly limits: RateLimits,
    private readonly now: () => number = Date.now,
    private readonly maxAgentCounters = DEFAULT_MAX_AGENT_COUNTERS,
  ) {}

  check(subject: RateLimitSubject): Promise<RateLimitVerdict> {
    return Promise.resolve(this.checkSync(subject));
  }

  /** The same decision, synchronously (also the fallback of the Redis limiter). */
  checkSync(subject: RateLimitSubject): RateLimitVerdict {
    const { windowMs, projectPerWindow, agentPerWindow } = this.limits;
    const t = this.now();
    const window = Math.floor(t / windowMs);
    if (window !== this.window) {
      this.window = window;
      this.projects = new Map();
      this.agents = new Map();
    }
    const resetMs = (window + 1) * windowMs - t;
    // The agent first, so a refused agent spends nothing of its project's budget (and neither
    // refusal creates a counter).
    const agentKey = `${subject.projectId}\u0000${subject.agent}`;
    const agentCount = this.agents.get(agentKey) ?? 0;
    if (agentCount >= agentPerWindow)
      return { allowed: false, scope: 'agent', limit: agentPerWindow, remaining: 0, resetMs };
    const projectCount = this.projects.get(subject.projectId) ?? 0;
    if (projectCount >= projectPerWindow)
      return { allowed: false, scope: 'project', limit: projectPerWindow, remaining: 0, resetMs };
    this.projects.set(subject.projectId, projectCount + 1);
    if (agentCount > 0 || this.agents.size < this.maxAgentCounters) this.agents.set(agentKey, agentCount + 1);
    const agentLeft = agentPerWindow - agentCount - 1;
    const projectLeft = projectPerWindow - projectCount - 1;
    return agentLeft <= projectLeft
      ? { allowed: true, scope: 'agent', limit: agentPerWindow, remaining: agentLeft, resetMs }
      : { allowed: true, scope: 'project', limit: projectPerWindow, remaining: projectLeft, resetMs };
  }

  /** Counters held now (projects and agents of the current window): what bounds this limiter's memory. */
  liveCounters(): number {
    return this.projects.size + this.agents.size;
  }

  close(): Promise<void> {
    this.projects.clear();
    this.agents.clear();
    return Promise.resolve();
  }
}
