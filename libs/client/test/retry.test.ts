import assert from 'node:assert/strict';
import { DEFAULT_RETRY } from '../src/options.ts';
import { parseDurationSeconds, parseRetryAfter } from '../src/retry-after.ts';
import { backoffDelayMs, retryWaitMs } from '../src/retry.ts';

describe('retry policy (pure functions)', () => {
  const policy = { maxAttempts: 4, baseDelayMs: 200, maxDelayMs: 1_000 };

  it('full jitter: a uniformly random wait in [0, min(cap, base * 2^(n-1))]', () => {
    assert.equal(
      backoffDelayMs(1, policy, () => 0),
      0,
    );
    assert.equal(
      backoffDelayMs(1, policy, () => 0.999999),
      199,
    );
    assert.equal(
      backoffDelayMs(2, policy, () => 0.5),
      200,
    );
    assert.equal(
      backoffDelayMs(3, policy, () => 0.999999),
      799,
    );
    assert.equal(
      backoffDelayMs(4, policy, () => 0.999999),
      999,
      'capped at maxDelayMs',
    );
    assert.equal(
      backoffDelayMs(30, policy, () => 0.5),
      500,
      'capped at maxDelayMs',
    );
    const waits = Array.from({ length: 200 }, () => backoffDelayMs(3, policy));
    assert.ok(waits.every((w) => w >= 0 && w < 800));
    assert.ok(new Set(waits).size > 50, 'the waits are spread, not one value');
  });

  it('Retry-After is a floor under the backoff, and above maxDelayMs it means "give up"', () => {
    assert.equal(
      retryWaitMs(1, policy, 1, () => 0),
      1_000,
    );
    assert.equal(
      retryWaitMs(4, { ...policy, maxDelayMs: 5_000 }, 1, () => 0.999999),
      1_599,
    );
    assert.equal(
      retryWaitMs(1, policy, 2, () => 0),
      undefined,
    );
    assert.equal(
      retryWaitMs(1, policy, undefined, () => 0.5),
      100,
    );
  });

  it('parses Retry-After as seconds or an HTTP date, rounding up; anything else is ignored', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('7', now), 7);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now), 3);
    assert.equal(parseRetryAfter(new Date(now + 1_200).toUTCString(), now - 200), 2);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now), 0, 'a date in the past: now');
    for (const bad of [null, undefined, '', '-1', '1.5', 'soon', '12abc']) {
      assert.equal(parseRetryAfter(bad, now), undefined, String(bad));
    }
  });

  it('parses a RetryInfo delay (google.protobuf.Duration JSON) to whole seconds, rounding up', () => {
    assert.equal(parseDurationSeconds('2s'), 2);
    assert.equal(parseDurationSeconds('1.500s'), 2);
    assert.equal(parseDurationSeconds('0.000000001s'), 1);
    assert.equal(parseDurationSeconds('2'), undefined);
    assert.equal(parseDurationSeconds(2), undefined);
  });

  it('defaults: 4 attempts (3 retries), 200 ms base, 10 s cap', () => {
    assert.deepEqual(DEFAULT_RETRY, { maxAttempts: 4, baseDelayMs: 200, maxDelayMs: 10_000 });
  });
});
