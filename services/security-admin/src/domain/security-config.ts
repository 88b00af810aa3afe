import type { EngramConfig } from '@engram/config';
import { rankingWeightsOf } from '@engram/ranking';
import {
  computePolicyVersion,
  ENTITY_ID_MAX_LENGTH,
  policySettings,
  SESSION_ID_MAX_LENGTH,
} from '@engram/security-rules';

/** Where the HMAC key comes from (never the key itself). */
function keySource(config: EngramConfig): string {
  if (config.serviceIntegrityKey !== undefined) return 'SERVICE_INTEGRITY_KEY';
  if (config.serviceApiKey !== undefined) return 'SERVICE_API_KEY';
  return 'generated (data directory)';
}

/**
 * GET /security/config: the active content policy, limits, integrity and ranking settings and the
 * policy_version new provenance records carry. No secret appears in it.
 */
export function securityConfig(config: EngramConfig) {
  return {
    policy: policySettings(config) as unknown as Record<string, unknown>,
    limits: {
      content_max_length: config.contentMaxLength,
      metadata_max_depth: config.metadataMaxDepth,
      metadata_max_keys: config.metadataMaxKeys,
      session_id_max_length: SESSION_ID_MAX_LENGTH,
      entity_id_max_length: ENTITY_ID_MAX_LENGTH,
      rate_limit_project_per_minute: config.rateLimitProjectPerMinute,
      rate_limit_agent_per_minute: config.rateLimitAgentPerMinute,
    },
    integrity: {
      read_mode: config.integrityReadMode,
      require_signed: config.integrityRequireSigned,
      signature_format: 'v2',
      verified_formats: ['v1', 'v2'],
      key_source: keySource(config),
    },
    ranking: {
      enable_trust_weighted_ranking: config.enableTrustWeightedRanking,
      enable_trust_levels: config.enableTrustLevels,
      weights: rankingWeightsOf(config),
    },
    policy_version: computePolicyVersion(config),
  };
}
