import { runService } from '@engram/platform';
import { composeIngestSecurity } from './compose.ts';

runService('ingest-security', composeIngestSecurity);
