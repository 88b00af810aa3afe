export { ENGINES } from './engines.ts';
export type { TestEngine } from './engines.ts';
export { openEngineDatabase } from './engine-database.ts';
export { freshPgliteDir } from './pglite-template.ts';
export type { EngineDatabase } from './engine-database.ts';
export { ApiClient } from './http-client.ts';
export type { ApiResponse } from './http-client.ts';
export { createTestDatabase, testServerUrl } from './postgres.ts';
export type { TestDatabase } from './postgres.ts';
export { ManagedProcess } from './child-process.ts';
export { SERVICES, startDistributed } from './distributed-engram.ts';
export type { DistributedEngram } from './distributed-engram.ts';
export { freePort, freePorts, portOpen } from './free-port.ts';
export { compiledEntry, NODE_ENV, NODE_FLAGS, REPO_ROOT } from './compiled-entry.ts';
export { TestNatsServer } from './nats-server.ts';
export { OpenApiResponses } from './openapi-validator.ts';
export type { OpenApiDocument } from './openapi-validator.ts';
export { PrivatePostgres } from './private-postgres.ts';
export { TestRedisServer } from './redis-server.ts';
export {
  EmbeddingStandIn,
  STANDIN_LATENT_DIMENSIONS,
  standInDimensions,
  standInLatent,
  standInTopic,
  standInVector,
  standInWords,
} from './embedding-standin.ts';
export type { EmbeddingStandInOptions } from './embedding-standin.ts';
