import assert from 'node:assert/strict';
import { Metadata } from '@grpc/grpc-js';
import { hashApiKey } from '@engram/auth';
import { PermissionDeniedError, UnauthenticatedError } from '@engram/errors';
import { INTERNAL_TOKEN_HEADER } from '@engram/grpc-kit';
import { KEY_CACHE_TTL_MS, KeyAuthenticator, type KeyLookup, type KeyRecord } from '../src/index.ts';

const RAW = 'egk_a_key_of_the_in_memory_lookup';
const TOKEN = 'internal-token-of-the-suite';

function key(overrides: Partial<KeyRecord> = {}): KeyRecord {
  return {
    key_id: 'k1',
    project_id: 'p1',
    name: 'test key',
    prefix: RAW.slice(0, 10),
    trust_level: 'internal',
    bound_agent_id: null,
    agent_ids: ['a', 'b'],
    any_agent: false,
    expires_at: null,
    revoked_at: null,
    instance_admin: false,
    created_at: new Date(0),
    ...overrides,
  };
}

/** An in-memory KeyLookup over one key (by the hash of RAW) that counts its reads. */
class OneKey implements KeyLookup {
  reads = 0;
  constructor(public record: KeyRecord | undefined) {}
  findByHash(hash: string): Promise<KeyRecord | undefined> {
    this.reads++;
    return Promise.resolve(hash === hashApiKey(RAW) ? this.record : undefined);
  }
}

function bearer(raw: string, token?: string): Metadata {
  const md = new Metadata();
  md.set('authorization', `Bearer ${raw}`);
  if (token !== undefined) md.set(INTERNAL_TOKEN_HEADER, token);
  return md;
}

describe('KeyAuthenticator on an in-memory KeyLookup', () => {
  let t = 1_000_000;
  const now = () => t;
  beforeEach(() => {
    t = 1_000_000;
  });

  it('resolves a live key to its principal (project, trust, agents)', async () => {
    const auth = new KeyAuthenticator({ keys: new OneKey(key({ bound_agent_id: 'bound' })), now });
    assert.deepEqual(await auth.authenticate(bearer(RAW)), {
      projectId: 'p1',
      keyId: 'k1',
      trust: 'internal',
      boundAgentId: 'bound',
      agentIds: ['a', 'b'],
      anyAgent: false,
      instanceAdmin: false,
    });
  });

  it('refuses a missing, malformed, unknown, revoked or untrusted-level key as unauthenticated', async () => {
    const refused = async (auth: KeyAuthenticator, md: Metadata) =>
      assert.rejects(auth.authenticate(md), UnauthenticatedError);
    await refused(new KeyAuthenticator({ keys: new OneKey(key()) }), new Metadata());
    await refused(new KeyAuthenticator({ keys: new OneKey(key()) }), bearer('short'));
    await refused(new KeyAuthenticator({ keys: new OneKey(key()) }), bearer('egk_some_other_key_entirely'));
    await refused(new KeyAuthenticator({ keys: new OneKey(key({ revoked_at: new Date(0) })) }), bearer(RAW));
    await refused(new KeyAuthenticator({ keys: new OneKey(key({ trust_level: 'root' })) }), bearer(RAW));
  });

  it('refuses an expired key, and a key that expires while cached from its expiry on', async () => {
    const expired = new KeyAuthenticator({ keys: new OneKey(key({ expires_at: new Date(t - 1) })), now });
    await assert.rejects(expired.authenticate(bearer(RAW)), UnauthenticatedError);

    const lookup = new OneKey(key({ expires_at: new Date(t + 1_000) }));
    const auth = new KeyAuthenticator({ keys: lookup, now });
    await auth.authenticate(bearer(RAW));
    t += 1_000;
    await assert.rejects(auth.authenticate(bearer(RAW)), UnauthenticatedError);
  });

  it('caches a lookup for KEY_CACHE_TTL_MS: a revocation takes effect after it, not before', async () => {
    const lookup = new OneKey(key());
    const auth = new KeyAuthenticator({ keys: lookup, now });
    await auth.authenticate(bearer(RAW));
    lookup.record = key({ revoked_at: new Date(t) });
    t += KEY_CACHE_TTL_MS - 1;
    await auth.authenticate(bearer(RAW));
    assert.equal(lookup.reads, 1);
    t += 1;
    await assert.rejects(auth.authenticate(bearer(RAW)), UnauthenticatedError);
    assert.equal(lookup.reads, 2);
  });

  it('admits the bootstrap key as the instance administrator without a lookup', async () => {
    const lookup = new OneKey(undefined);
    const auth = new KeyAuthenticator({ keys: lookup, bootstrapKey: 'egk_the_bootstrap_key' });
    const p = await auth.authenticate(bearer('egk_the_bootstrap_key'));
    assert.deepEqual(p, { projectId: 'default', keyId: 'bootstrap', trust: 'system', instanceAdmin: true });
    assert.equal(lookup.reads, 0);
  });

  it('authenticateInternal needs the internal token as well as a valid key', async () => {
    const auth = new KeyAuthenticator({ keys: new OneKey(key()), internalToken: TOKEN });
    await assert.rejects(auth.authenticateInternal(bearer(RAW)), PermissionDeniedError);
    await assert.rejects(auth.authenticateInternal(bearer(RAW, 'guessed')), PermissionDeniedError);
    assert.equal((await auth.authenticateInternal(bearer(RAW, TOKEN))).keyId, 'k1');
    await assert.rejects(
      auth.authenticateInternal(bearer('egk_some_other_key_entirely', TOKEN)),
      UnauthenticatedError,
    );
  });
});
