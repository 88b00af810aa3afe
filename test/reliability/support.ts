import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import {
  PrivatePostgres,
  startDistributed,
  TestNatsServer,
  TestRedisServer,
  type DistributedEngram,
  type ManagedProcess,
} from '@engram/testing';

/** How a fault test's long version is chosen: `make reliability` sets ENGRAM_RELIABILITY=long. */
export const LONG = process.env.ENGRAM_RELIABILITY === 'long';

/** Limits high enough that load tests measure faults, not the rate limiter. */
export const UNLIMITED = {
  RATE_LIMIT_PROJECT_PER_MINUTE: '10000000',
  RATE_LIMIT_AGENT_PER_MINUTE: '10000000',
};

/** One HTTP request of a load: what came back, or how the connection failed. */
export interface Outcome {
  readonly op: string;
  readonly startedAt: number;
  readonly ms: number;
  /** HTTP status; 0 when no HTTP answer came (closed socket, refused, timeout). */
  readonly status: number;
  readonly reason?: string | undefined;
  /** The network error when status is 0. */
  readonly error?: string | undefined;
  readonly id?: string | undefined;
}

const CLIENT_TIMEOUT_MS = 60_000;

/**
 * Sends one request and records the outcome; never throws. A request without an HTTP answer within
 * a minute counts as dropped (status 0).
 */
export async function timed(
  op: string,
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Outcome & { body?: Record<string, unknown> }> {
  const startedAt = Date.now();
  try {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const text = await res.text();
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    const error = parsed?.error as { reason?: string } | undefined;
    return {
      op,
      startedAt,
      ms: Date.now() - startedAt,
      status: res.status,
      ...(error?.reason ? { reason: error.reason } : {}),
      ...(typeof parsed?.id === 'string' ? { id: parsed.id } : {}),
      ...(parsed ? { body: parsed } : {}),
    };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return {
      op,
      startedAt,
      ms: Date.now() - startedAt,
      status: 0,
      error: `${(err as Error).name}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
    };
  }
}

/** Runs `clients` loops of `step` until stop() resolves; returns every outcome. */
export async function runLoad(
  clients: number,
  step: (client: number, seq: number) => Promise<Outcome>,
  until: Promise<unknown>,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let done = false;
  void until.then(() => (done = true));
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let seq = 0; !done; seq++) {
        const { op, startedAt, ms, status, reason, error, id } = await step(c, seq);
        outcomes.push({ op, startedAt, ms, status, reason, error, id });
      }
    }),
  );
  return outcomes;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const WORDS = (
  'amber basil cedar delta ember fjord grove harbor island juniper kestrel lagoon meadow nectar ' +
  'orchid pebble quarry raven spruce tundra upland valley willow yarrow zephyr acorn birch comet ' +
  'dune eagle falcon glacier'
).split(' ');

/**
 * Unique content for a write (no deduplication between writes): words only, since random digits or
 * hex can look like personal data or a secret to content screening.
 */
export function uniqueContent(client: number, seq: number): string {
  const words = [...randomBytes(6)].map((b) => WORDS[b % WORDS.length]).join(' ');
  return `Reliability write by writer ${client}, step ${seq}: ${words}; rotate the staging certificates weekly.`;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Counts of outcomes by "status reason" (or the network error), for assertion messages and reports. */
export function tally(outcomes: readonly Outcome[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) {
    const k = o.status === 0 ? `dropped ${o.error}` : `${o.status}${o.reason ? ' ' + o.reason : ''}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** Resident memory (MiB) and open file descriptors of a process, from /proc. */
export function processStats(pid: number): { rssMiB: number; fds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { rssMiB: Math.round((kb / 1024) * 10) / 10, fds: readdirSync(`/proc/${pid}/fd`).length };
}

/** Lines of a process's kept output that match. */
export function logLines(p: ManagedProcess, match: RegExp): string[] {
  return p.output.filter((l) => match.test(l));
}

/** From now on, keeps every line of the process's output that matches (beyond ManagedProcess's tail). */
export function collectLines(p: ManagedProcess, match: RegExp): string[] {
  const kept: string[] = [];
  let partial = '';
  const onData = (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) if (match.test(l)) kept.push(l);
  };
  p.child.stdout?.on('data', onData);
  p.child.stderr?.on('data', onData);
  return kept;
}

/** The distributed suite on a PostgreSQL, a nats-server and (optionally) a redis-server of its own. */
export interface FaultSuite {
  readonly pg: PrivatePostgres;
  readonly nats: TestNatsServer;
  readonly redis: TestRedisServer | undefined;
  readonly engram: DistributedEngram;
  readonly stream: string;
  stop(): Promise<void>;
}

export async function startFaultSuite(
  opts: { redis?: boolean; env?: Record<string, string> } = {},
): Promise<FaultSuite> {
  const pg = await PrivatePostgres.create();
  let nats: TestNatsServer | undefined;
  let redis: TestRedisServer | undefined;
  try {
    const url = await pg.createDatabase('engram');
    nats = await TestNatsServer.start();
    redis = opts.redis ? await TestRedisServer.start() : undefined;
    const stream = `ENGRAM_AUDIT_REL_${randomBytes(4).toString('hex').toUpperCase()}`;
    const engram = await startDistributed({
      databaseUrl: url,
      natsUrl: nats.url,
      natsStream: stream,
      env: { ...UNLIMITED, ...(redis ? { REDIS_URL: redis.url } : {}), ...opts.env },
    });
    const [n, r] = [nats, redis];
    return {
      pg,
      nats,
      redis,
      engram,
      stream,
      async stop() {
        await engram.stop();
        await Promise.all([n.stop(), r?.stop(), pg.remove()]);
      },
    };
  } catch (err) {
    await Promise.all([nats?.stop(), redis?.stop(), pg.remove()]);
    throw err;
  }
}

let shared: Promise<FaultSuite> | undefined;

/**
 * The suite a fault test runs on. In `make test` the NATS, PostgreSQL and soak tests share one (with
 * Redis, limits out of the way), started by the first that asks and stopped after the run's last
 * test: each fault is survived by the same processes the next test then loads, and two starts of six
 * processes are saved. `make reliability` starts one per test, so that each figure comes from fresh
 * processes. Pair with releaseFaultSuite.
 */
export function faultSuiteForTest(): Promise<FaultSuite> {
  if (LONG) return startFaultSuite({ redis: true });
  shared ??= startFaultSuite({ redis: true });
  return shared;
}

/** Stops a suite of faultSuiteForTest when it is the test's own (the shared one is stopped last). */
export async function releaseFaultSuite(suite: FaultSuite | undefined): Promise<void> {
  if (LONG) await suite?.stop();
}

// A root hook: runs once, after every test of the run.
after(async () => {
  const suite = await shared?.catch(() => undefined);
  await suite?.stop();
});

/** Prints the error lines of every process and the database's tail (for a failed test). */
export function printFailureLogs(suite: FaultSuite | undefined, errors: Map<string, string[]>): void {
  for (const [name, lines] of errors)
    console.log(
      `--- ${name} errors ---\n` +
        lines
          .slice(-10)
          .map((l) => l.slice(0, 1500))
          .join('\n'),
    );
  if (suite) console.log(suite.engram.logs().slice(-20_000), suite.pg.tail());
}

/** Starts keeping the error lines of every process of the suite. */
export function collectErrors(engram: DistributedEngram): Map<string, string[]> {
  const errors = new Map<string, string[]>();
  for (const p of engram.processes.values()) errors.set(p.name, collectLines(p, /"level":"(error|fatal)"/));
  return errors;
}
