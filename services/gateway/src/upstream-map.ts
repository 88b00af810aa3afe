import type { EngramConfig } from '@engram/config';

/** The addresses buildUpstreams reads from the configuration. */
export type UpstreamAddresses = Pick<
  EngramConfig,
  'ingestSecurityAddr' | 'memoryStoreAddr' | 'retrievalRankingAddr' | 'aceFeedbackAddr' | 'securityAdminAddr'
>;

/**
 * Proto service full name -> upstream address, for every service the gateway routes to. Internal
 * services without HTTP rules (MemoryWriterService, IngestInternal) are not listed: they have no
 * routes. The embedded process passes one address for all.
 */
export function buildUpstreams(config: UpstreamAddresses): Record<string, string> {
  return {
    'engram.ingest.v1.IngestService': config.ingestSecurityAddr,
    'engram.memory.v1.MemoryStoreService': config.memoryStoreAddr,
    'engram.admin.v1.AdminService': config.memoryStoreAddr,
    'engram.retrieval.v1.RetrievalService': config.retrievalRankingAddr,
    'engram.ace.v1.AceService': config.aceFeedbackAddr,
    'engram.security.v1.SecurityAdminService': config.securityAdminAddr,
  };
}
