export { startEmbedded } from './embedded.ts';
export type { Embedded } from './embedded.ts';
