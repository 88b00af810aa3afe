export { AnswerSeal } from './answer-seal.ts';
export { KnexIdempotencyStore } from './knex-idempotency-store.ts';
export type { KnexIdempotencyStoreOptions } from './knex-idempotency-store.ts';
export { idempotencyMigrations } from './migrations.ts';
