export { createLogger, REDACTED_PATHS } from './logger.ts';
export type { Logger, LoggerOptions } from './logger.ts';
export { currentRequestContext, runWithRequestContext } from './request-context.ts';
export type { RequestContext } from './request-context.ts';
export { onTerminationSignal } from './signals.ts';
