export { aceMigrations } from '../migrations/index.ts';
export { ACE_SERVICE_NAMES, aceServices } from './server.ts';
