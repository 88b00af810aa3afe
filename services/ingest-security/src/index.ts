export { INGEST_SERVICE_NAMES, ingestServices } from './server.ts';
