import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line of a request carries; set by the gRPC and HTTP entry points. */
export interface RequestContext {
  readonly requestId: string;
  readonly projectId?: string;
  readonly keyId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}
