import { loadEngramConfig } from '@engram/config';
import { configuredPeers, createPlatform, runMain, serveServices } from '@engram/platform';
import { SECURITY_ADMIN_SERVICE_NAMES, securityAdminServices } from './server.ts';

runMain('security-admin', async () => {
  const config = loadEngramConfig(process.env);
  const platform = await createPlatform({ config, service: 'security-admin', migrations: [] });
  await serveServices(
    platform,
    securityAdminServices(platform, configuredPeers(config)),
    SECURITY_ADMIN_SERVICE_NAMES,
  );
  platform.runtime.installSignalHandlers();
});
