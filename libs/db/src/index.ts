export { openDatabase } from './database.ts';
export type { Database, DatabaseOptions, Engine } from './database.ts';
export { migrateLatest, migrateRollbackAll } from './migrations.ts';
export type { Migration, MigrationSet } from './migrations.ts';
