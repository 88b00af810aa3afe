export { aceMigrations } from '../migrations/index.ts';
export { ACE_SERVICE_NAMES, composeAceFeedback } from './compose.ts';
export { aceConfig } from './config.ts';
export type { AceConfig } from './config.ts';
