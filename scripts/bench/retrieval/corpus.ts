/**
 * A deterministic synthetic corpus of engineering memories (seeded PRNG): incidents, decisions and
 * preferences with services, error codes, file paths and people, so that both the vector and the
 * full-text channel have something to find, and queries built from one memory's words.
 */
import { mulberry32 } from '@engram/security-rules';

const SERVICES = [
  'payments',
  'billing',
  'search',
  'checkout',
  'inventory',
  'auth',
  'gateway',
  'ledger',
  'pricing',
  'shipping',
  'notifications',
  'analytics',
  'catalog',
  'reviews',
  'recommendations',
  'identity',
];
const VERBS = [
  'fails',
  'times out',
  'leaks memory',
  'retries',
  'deadlocks',
  'slows down',
  'drops requests',
  'crashes',
  'returns stale data',
  'rejects tokens',
  'double charges',
  'loses events',
];
const CAUSES = [
  'the canary is unhealthy',
  'the connection pool is exhausted',
  'a schema migration is running',
  'the cache is cold',
  'the certificate expired',
  'the queue is backed up',
  'DNS resolution flaps',
  'the feature flag is on',
  'the replica lags',
  'the disk is full',
  'GC pauses spike',
  'the rate limiter trips',
  'the batch job overlaps',
  'the lock is contended',
];
const FIXES = [
  'restart the worker',
  'raise the pool size',
  'pin the client version',
  'warm the cache first',
  'rotate the certificate',
  'drain the queue',
  'fall back to the primary',
  'disable the flag',
  'add an index',
  'split the batch',
  'increase the timeout',
  'page the on-call engineer',
];
const PEOPLE = ['Ana', 'Bruno', 'Chen', 'Dara', 'Emeka', 'Farah', 'Goran', 'Hana', 'Ivo', 'Jun'];
const FILES = ['pool.ts', 'client.go', 'retry.py', 'schema.sql', 'handler.rs', 'config.yaml', 'cache.ts'];

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** The i-th memory of the corpus (the same i always gives the same text). */
export function memoryText(i: number): string {
  const r = mulberry32(i * 7919 + 17);
  const svc = pick(r, SERVICES);
  const code = `E${1000 + Math.floor(r() * 9000)}`;
  const file = `src/${svc}/${pick(r, FILES)}`;
  switch (i % 3) {
    case 0:
      return `The ${svc} service ${pick(r, VERBS)} with ${code} when ${pick(r, CAUSES)}; ${pick(r, PEOPLE)} says ${pick(r, FIXES)} (see ${file}). Note ${i}.`;
    case 1:
      return `Decision ${i}: for ${svc}, ${pick(r, FIXES)} because ${pick(r, CAUSES)}. Owner ${pick(r, PEOPLE)}, error ${code}.`;
    default:
      return `${pick(r, PEOPLE)} prefers to ${pick(r, FIXES)} on ${svc} before release; last time it ${pick(r, VERBS)} in ${file} (ref ${i}).`;
  }
}

/** A query about memory i: a handful of its words, as a user would half-remember them. */
export function queryText(i: number, seed: number): string {
  const r = mulberry32(seed);
  const words = memoryText(i)
    .replace(/[;().,:]/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 3);
  const out: string[] = [];
  for (let k = 0; k < 5 && words.length > 0; k++)
    out.push(words.splice(Math.floor(r() * words.length), 1)[0]!);
  return out.join(' ');
}
