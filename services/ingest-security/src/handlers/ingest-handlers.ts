import { callerOf, type Principal } from '@engram/auth';
import { InvalidArgumentError } from '@engram/errors';
import type { CallContext, HandlersOf } from '@engram/grpc-kit';
import type { BatchItemResult, IngestServiceService } from '@engram/proto/engram/ingest/v1/ingest';
import type { MemoryDraft } from '@engram/memory-model';
import { importRequest } from '../domain/import-row.ts';
import type { WriteOrigin, WriteRequest } from '../domain/write-request.ts';
import { internalHandlers } from './internal-handlers.ts';
import { fillStored, itemError } from './item-error.ts';
import { screenOrReject, type IngestDeps } from './screen-or-reject.ts';

export const MAX_BATCH_ITEMS = 100;

const empty = { shared_with: [], steps: [], trigger_conditions: [] };

/** The write routes of ingest-security: every one goes through screenWrite, then memory-store. */
export function ingestHandlers(
  deps: IngestDeps,
): Partial<HandlersOf<typeof IngestServiceService, Principal>> {
  const origin = (ctx: CallContext<Principal>, kind: WriteOrigin['kind']): WriteOrigin => ({
    channel: ctx.channel,
    kind,
    depth: 0,
    interactionId: ctx.requestId,
  });

  async function writeOne(req: WriteRequest, ctx: CallContext<Principal>, kind: WriteOrigin['kind']) {
    const draft = await screenOrReject(deps, req, ctx, origin(ctx, kind));
    const { results } = await deps.writer.persist([draft], callerOf(ctx.metadata));
    const [result] = results;
    if (!result) throw new Error('memory-store returned no result');
    return result;
  }

  /**
   * A batch: each item succeeds or fails on its own (a rejected item carries its error and its audit
   * event); the accepted ones are stored together; results in input order.
   */
  async function writeEach<T>(
    field: string,
    items: readonly T[],
    toRequest: (item: T) => WriteRequest,
    ctx: CallContext<Principal>,
    kind: WriteOrigin['kind'],
  ) {
    if (items.length === 0 || items.length > MAX_BATCH_ITEMS) {
      throw new InvalidArgumentError('request failed validation', [
        { field, description: `must hold 1 to ${MAX_BATCH_ITEMS} items`, reason: 'INVALID_VALUE' },
      ]);
    }
    const results: BatchItemResult[] = [];
    const accepted: { index: number; draft: MemoryDraft }[] = [];
    for (const [index, item] of items.entries()) {
      try {
        accepted.push({ index, draft: await screenOrReject(deps, toRequest(item), ctx, origin(ctx, kind)) });
        results.push({ index, deduplicated: false, content_flags: [] });
      } catch (err) {
        results.push({ index, deduplicated: false, content_flags: [], error: itemError(err) });
      }
    }
    if (accepted.length > 0) {
      const { results: stored } = await deps.writer.persist(
        accepted.map((a) => a.draft),
        callerOf(ctx.metadata),
      );
      fillStored(results, accepted, stored);
    }
    return { results };
  }

  return {
    ...internalHandlers(deps),

    addMemory: (req, ctx) => writeOne(req, ctx, 'add'),

    addEpisodic: (req, ctx) => {
      if (req.session_id === '') {
        throw new InvalidArgumentError('request failed validation', [
          { field: 'session_id', description: 'is required for episodic memories', reason: 'REQUIRED' },
        ]);
      }
      return writeOne({ ...empty, ...req, memory_type: 'episodic' }, ctx, 'typed');
    },
    addSemantic: (req, ctx) => writeOne({ ...empty, ...req, memory_type: 'semantic' }, ctx, 'typed'),
    addProcedural: (req, ctx) => writeOne({ ...empty, ...req, memory_type: 'procedural' }, ctx, 'typed'),
    addControl: (req, ctx) => writeOne({ ...empty, ...req, memory_type: 'control' }, ctx, 'typed'),

    addMemoryBatch: (req, ctx) => writeEach('items', req.items, (item) => item, ctx, 'add'),

    /** Export rows of another Engram, screened and signed anew; provenance kind "import". */
    importMemories: (req, ctx) => writeEach('memories', req.memories, importRequest, ctx, 'import'),
  };
}
