import { loadEngramConfig } from '@engram/config';
import { onTerminationSignal } from '@engram/logger';
import { runMain } from '@engram/platform';
import { startEmbedded } from './embedded.ts';

runMain('engram', async () => {
  const config = loadEngramConfig(process.env);
  const engram = await startEmbedded(config);
  const base = `http://${config.host}:${engram.httpPort}`;
  const lines = [
    `engram: serving REST on ${base} and gRPC on ${config.host}:${engram.grpcPort}`,
    `engram: storage ${engram.platform.embedded ? `PGlite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)'}; events ${config.natsUrl ? 'NATS JetStream' : 'in-process bus'}`,
  ];
  if (engram.generatedKey) {
    lines.push(
      `engram: generated the system API key of project "default" (shown only this once):`,
      `  ${engram.generatedKey}`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n');
  onTerminationSignal(engram.platform.logger, () => {
    void engram.stop().then(() => {
      process.stdout.write('engram: stopped\n');
      process.exit(0);
    });
  });
});
