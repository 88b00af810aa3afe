export { composeIngestSecurity, INGEST_SERVICE_NAMES } from './compose.ts';
export { ingestConfig } from './config.ts';
export type { IngestConfig } from './config.ts';
