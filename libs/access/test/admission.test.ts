import assert from 'node:assert/strict';
import { Metadata } from '@grpc/grpc-js';
import { RateLimitedError } from '@engram/errors';
import { INTERNAL_TOKEN_HEADER } from '@engram/grpc-kit';
import { KeyAuthenticator, MemoryRateLimiter } from '../src/index.ts';

const BOOTSTRAP = 'egk_bootstrap_key_for_admission_tests';
const TOKEN = 'internal-token-of-the-suite';

function metadata(opts: { token?: string } = {}): Metadata {
  const md = new Metadata();
  md.set('authorization', `Bearer ${BOOTSTRAP}`);
  if (opts.token !== undefined) md.set(INTERNAL_TOKEN_HEADER, opts.token);
  return md;
}

async function limited(p: Promise<unknown>): Promise<boolean> {
  try {
    await p;
    return false;
  } catch (err) {
    if (err instanceof RateLimitedError) return true;
    throw err;
  }
}

/** Admission: authentication, then the rate limit, counted once per call that enters the suite. */
describe('KeyAuthenticator admission (rate limits)', () => {
  // The bootstrap key is checked without a lookup: one that finds nothing is enough.
  const make = () =>
    new KeyAuthenticator({
      keys: { findByHash: () => Promise.resolve(undefined) },
      bootstrapKey: BOOTSTRAP,
      internalToken: TOKEN,
      limiter: new MemoryRateLimiter({ projectPerWindow: 100, agentPerWindow: 2, windowMs: 60_000 }),
    });

  it('counts public calls per acting agent and refuses the one over the budget', async () => {
    const auth = make();
    assert.equal(await limited(auth.authenticate(metadata(), '/m', { agent_id: 'a' })), false);
    assert.equal(await limited(auth.authenticate(metadata(), '/m', { agent_id: 'a' })), false);
    assert.equal(await limited(auth.authenticate(metadata(), '/m', { agent_id: 'a' })), true);
    assert.equal(await limited(auth.authenticate(metadata(), '/m', { agent_id: 'b' })), false);
  });

  it('does not count internal calls again (authenticateInternal, or a public call with the service token)', async () => {
    const auth = make();
    for (let i = 0; i < 5; i++) {
      assert.equal(await limited(auth.authenticateInternal(metadata({ token: TOKEN }))), false);
      assert.equal(
        await limited(auth.authenticate(metadata({ token: TOKEN }), '/m', { agent_id: 'a' })),
        false,
      );
    }
    assert.equal(await limited(auth.authenticate(metadata(), '/m', { agent_id: 'a' })), false);
  });

  it('a wrong service token is counted like any public call', async () => {
    const auth = make();
    for (let i = 0; i < 2; i++)
      await auth.authenticate(metadata({ token: 'guessed' }), '/m', { agent_id: 'a' });
    assert.equal(
      await limited(auth.authenticate(metadata({ token: 'guessed' }), '/m', { agent_id: 'a' })),
      true,
    );
  });
});
