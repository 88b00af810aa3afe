export { createPlatform } from './platform.ts';
export type { Platform, PlatformOptions } from './platform.ts';
export { resolveSecrets } from './secrets.ts';
export type { Secrets } from './secrets.ts';
export { runMain, serveServices } from './serve.ts';
export { embeddingSettings } from './embedding-settings.ts';
export { configuredPeers, loopbackPeers } from './peers.ts';
export type { Peers } from './peers.ts';
