import { loadEngramConfig } from '@engram/config';
import { configuredPeers, createPlatform, runMain, serveServices } from '@engram/platform';
import { INGEST_SERVICE_NAMES, ingestServices } from './server.ts';

runMain('ingest-security', async () => {
  const config = loadEngramConfig(process.env);
  const platform = await createPlatform({ config, service: 'ingest-security', migrations: [] });
  const { services, policyVersion } = ingestServices(platform, configuredPeers(config));
  platform.logger.info({ policy_version: policyVersion }, 'content policy loaded');
  await serveServices(platform, services, INGEST_SERVICE_NAMES);
  platform.runtime.installSignalHandlers();
});
