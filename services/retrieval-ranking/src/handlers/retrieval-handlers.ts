import type { Principal } from '@engram/auth';
import type { HandlersOf } from '@engram/grpc-kit';
import type { RetrievalServiceService } from '@engram/proto/engram/retrieval/v1/retrieval';
import type { PlaybookRepository } from '../domain/playbook.ts';
import type { QueryDeps } from '../domain/query-memories.ts';
import { contextHandlers } from './context-handlers.ts';
import { playbookHandlers } from './playbook-handlers.ts';
import { queryHandlers } from './query-handlers.ts';

/** Every retrieval route: queries, playbooks, and the context reads (hybrid, handoff, bundle). */
export function retrievalHandlers(
  deps: QueryDeps & { readonly playbook?: PlaybookRepository },
): Partial<HandlersOf<typeof RetrievalServiceService, Principal>> {
  return { ...queryHandlers(deps), ...playbookHandlers(deps), ...contextHandlers(deps) };
}
