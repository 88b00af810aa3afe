import { loadEngramConfig } from '@engram/config';
import { aceMigrations } from '../migrations/index.ts';
import { configuredPeers, createPlatform, runMain, serveServices } from '@engram/platform';
import { ACE_SERVICE_NAMES, aceServices } from './server.ts';

runMain('ace-feedback', async () => {
  const config = loadEngramConfig(process.env);
  const platform = await createPlatform({ config, service: 'ace-feedback', migrations: [aceMigrations] });
  await serveServices(platform, aceServices(platform, configuredPeers(config)), ACE_SERVICE_NAMES);
  platform.runtime.installSignalHandlers();
});
