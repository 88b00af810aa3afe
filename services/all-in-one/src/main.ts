import { loadEngramConfig } from '@engram/config';
import { runMain } from '@engram/runtime';
import { startEmbedded } from './embedded.ts';

runMain('engram', async () => {
  const config = loadEngramConfig(process.env);
  const engram = await startEmbedded(config);
  const base = `http://${config.host}:${engram.httpPort}`;
  const lines = [
    `engram: serving REST on ${base} and gRPC on ${config.host}:${engram.grpcPort}`,
    `engram: storage ${engram.proc.embedded ? `PGlite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)'}; events ${config.natsUrl ? 'NATS JetStream' : 'in-process bus'}`,
  ];
  if (engram.generatedKey) {
    lines.push(
      `engram: generated the system API key of project "default" (shown only this once):`,
      `  ${engram.generatedKey}`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n');
  engram.proc.runtime.installSignalHandlers(() => process.stdout.write('engram: stopped\n'));
});
