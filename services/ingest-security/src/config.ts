import type { EngramConfig } from '@engram/config';
import { computePolicyVersion, screeningSettingsOf } from '@engram/security-rules';
import type { PipelineSettings } from './domain/write-pipeline.ts';

/**
 * The settings ingest-security reads: write limits (CONTENT_MAX_LENGTH, METADATA_MAX_*), trust
 * levels, the content policy and stage 4, and the policy version every verdict is recorded with.
 */
export type IngestConfig = Omit<PipelineSettings, 'metrics'>;

export function ingestConfig(config: EngramConfig): IngestConfig {
  return {
    limits: {
      contentMaxLength: config.contentMaxLength,
      metadataMaxDepth: config.metadataMaxDepth,
      metadataMaxKeys: config.metadataMaxKeys,
    },
    enableTrustLevels: config.enableTrustLevels,
    policyVersion: computePolicyVersion(config),
    ...screeningSettingsOf(config),
  };
}
