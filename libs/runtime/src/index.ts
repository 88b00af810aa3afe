export { runMain } from './run-main.ts';
export { Runtime, SHUTDOWN_PHASES } from './runtime.ts';
export type { ShutdownPhase } from './runtime.ts';
