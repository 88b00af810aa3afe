import type { Metadata } from '@grpc/grpc-js';
import { bearerToken, constantTimeEqual, hashApiKey, isPrincipalTrust, type Principal } from '@engram/auth';
import { PermissionDeniedError, UnauthenticatedError } from '@engram/errors';
import { INTERNAL_TOKEN_HEADER } from '@engram/grpc-kit';
import type { KeyLookup } from './key-lookup.ts';
import { enforceRateLimit, type RateLimiter } from './rate-limit/rate-limiter.ts';
import { rateLimitSubject } from './rate-limit-subject.ts';

/** How long a key lookup is cached: the documented delay before a revocation takes effect. */
export const KEY_CACHE_TTL_MS = 5_000;
const MAX_CACHE_ENTRIES = 10_000;

export interface KeyAuthenticatorOptions {
  /** Finds a key by its hash (KnexKeyLookup on api_keys; tests may pass one in memory). */
  readonly keys: KeyLookup;
  /** SERVICE_API_KEY: system key of project "default", the instance administrator. */
  readonly bootstrapKey?: string | undefined;
  readonly internalToken?: string | undefined;
  /**
   * Counts every admitted public call per project and acting agent. Calls that carry the internal
   * service token were counted where they entered the suite and are not counted again.
   */
  readonly limiter?: RateLimiter | undefined;
  readonly cacheTtlMs?: number;
  readonly now?: () => number;
}

interface CacheEntry {
  readonly principal: Principal | undefined;
  readonly expires: number;
}

/**
 * Resolves the caller of every RPC from `authorization: Bearer <key>`. Expired and revoked keys are
 * refused; lookups are cached for KEY_CACHE_TTL_MS.
 */
export class KeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly ttl: number;
  private readonly now: () => number;

  constructor(private readonly opts: KeyAuthenticatorOptions) {
    this.ttl = opts.cacheTtlMs ?? KEY_CACHE_TTL_MS;
    this.now = opts.now ?? Date.now;
  }

  /**
   * For public RPCs: the principal of the presented key, admitted by the rate limiter (RESOURCE_EXHAUSTED
   * when the project's or the acting agent's budget is spent).
   */
  authenticate = async (metadata: Metadata, _method?: string, request?: unknown): Promise<Principal> => {
    const principal = await this.identify(metadata);
    if (this.opts.limiter !== undefined && !this.hasInternalToken(metadata)) {
      await enforceRateLimit(this.opts.limiter, rateLimitSubject(principal, request));
    }
    return principal;
  };

  /** The principal of the presented key, without admission. */
  private async identify(metadata: Metadata): Promise<Principal> {
    const raw = bearerToken(metadata.get('authorization')[0]);
    if (raw === undefined)
      throw new UnauthenticatedError('missing or malformed API key (authorization: Bearer <key>)');
    if (this.opts.bootstrapKey && constantTimeEqual(raw, this.opts.bootstrapKey)) {
      return { projectId: 'default', keyId: 'bootstrap', trust: 'system', instanceAdmin: true };
    }
    const principal = await this.lookup(hashApiKey(raw));
    if (!principal) throw new UnauthenticatedError('invalid, expired or revoked API key');
    return principal;
  }

  private hasInternalToken(metadata: Metadata): boolean {
    const token = metadata.get(INTERNAL_TOKEN_HEADER)[0];
    return (
      this.opts.internalToken !== undefined &&
      this.opts.internalToken !== '' &&
      typeof token === 'string' &&
      constantTimeEqual(token, this.opts.internalToken)
    );
  }

  /** For internal RPCs: the internal service token AND the original caller's key. */
  authenticateInternal = async (metadata: Metadata): Promise<Principal> => {
    if (!this.hasInternalToken(metadata)) throw new PermissionDeniedError('internal method', 'INTERNAL_ONLY');
    // The call was counted where it entered the suite (gateway -> ingest -> memory-store counts once).
    return this.identify(metadata);
  };

  private async lookup(hash: string): Promise<Principal | undefined> {
    const t = this.now();
    const hit = this.cache.get(hash);
    if (hit && hit.expires > t) return this.stillValid(hit.principal, t);
    const row = await this.opts.keys.findByHash(hash);
    let principal: Principal | undefined;
    let expiresAt = Number.POSITIVE_INFINITY;
    if (row && row.revoked_at === null && isPrincipalTrust(row.trust_level)) {
      expiresAt = row.expires_at === null ? Number.POSITIVE_INFINITY : row.expires_at.getTime();
      principal = {
        projectId: row.project_id,
        keyId: row.key_id,
        trust: row.trust_level,
        boundAgentId: row.bound_agent_id ?? undefined,
        agentIds: row.agent_ids,
        anyAgent: row.any_agent,
        instanceAdmin: row.instance_admin,
      };
    }
    if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.clear();
    this.cache.set(hash, { principal, expires: Math.min(t + this.ttl, expiresAt) });
    return this.stillValid(principal, t, expiresAt);
  }

  private stillValid(
    p: Principal | undefined,
    t: number,
    expiresAt = Number.POSITIVE_INFINITY,
  ): Principal | undefined {
    return p && t < expiresAt ? p : undefined;
  }
}
