import { callerOf, type Principal } from '@engram/auth';
import { InvalidArgumentError } from '@engram/errors';
import type { CallContext, HandlersOf } from '@engram/grpc-kit';
import type { BatchItemResult, IngestServiceService } from '@engram/proto/engram/ingest/v1/ingest';
import type { MemoryDraft } from '@engram/memory-model';
import { deprecationFromProto } from '@engram/memories';
import type { WriteOrigin } from '../domain/write-request.ts';
import { fillStored, itemError } from './item-error.ts';
import { scanContentHandler } from './scan-content.ts';
import { screenOrReject, type IngestDeps } from './screen-or-reject.ts';

export const INTERNAL_KINDS = ['delta', 'reflection', 'run_reflection', 'consolidation', 'import'] as const;
type InternalKind = (typeof INTERNAL_KINDS)[number];
const MAX_INTERNAL_ITEMS = 100;
const MAX_DEPTH = 1000;

function isInternalKind(v: string): v is InternalKind {
  return (INTERNAL_KINDS as readonly string[]).includes(v);
}

function invalid(field: string, description: string): InvalidArgumentError {
  return new InvalidArgumentError('request failed validation', [
    { field, description, reason: 'INVALID_VALUE' },
  ]);
}

/**
 * IngestService.IngestInternal: the write pipeline for other services' writes. Contract for callers
 * (ace-feedback: delta adds, reflections, run-failure reflections, consolidation results; the
 * importer):
 *  - call with the internal token AND the original caller's `authorization` (forwardMetadata): the
 *    items are screened and authorized as that caller's writes (bound agents, trust, scope);
 *  - `kind` is delta | reflection | run_reflection | consolidation | import and is recorded in
 *    provenance with `source_run_id` and `depth` (0 direct; 1 + the depth of the memories it derives
 *    from); the channel is the one the original caller came in by (rest or mcp when the gateway
 *    proved it and the calling service forwarded the proof), `internal` otherwise;
 *  - every item goes through stages 1-4 exactly like /memories/add; each result carries an id, or
 *    the item's error (400 validation, 403 scope/trust/agent, 422 SECURITY_REJECTED with the
 *    detections). A rejected item's SECURITY_REJECTED audit event is always recorded;
 *  - atomic=true: if any item fails, nothing is stored, no deprecation is applied, applied=false
 *    (the results say which items failed and why); otherwise the accepted items and all
 *    `deprecations` are applied in ONE memory-store transaction (applied=true, deprecated_ids);
 *  - atomic=false: the accepted items are stored and the deprecations applied in one transaction;
 *    failed items are reported in place, as add_batch does;
 *  - a deprecation that fails (unknown id, not the caller's) fails the whole call with its error,
 *    and nothing of it is stored.
 */
export function internalHandlers(
  deps: IngestDeps,
): Partial<HandlersOf<typeof IngestServiceService, Principal>> {
  return {
    scanContent: (req, ctx) => scanContentHandler(deps.settings, req, ctx),

    async ingestInternal(req, ctx: CallContext<Principal>) {
      if (!isInternalKind(req.kind)) throw invalid('kind', `must be one of: ${INTERNAL_KINDS.join(', ')}`);
      if (req.items.length > MAX_INTERNAL_ITEMS)
        throw invalid('items', `at most ${MAX_INTERNAL_ITEMS} items`);
      if (req.items.length === 0 && req.deprecations.length === 0) {
        throw invalid('items', 'items or deprecations are required');
      }
      if (!Number.isInteger(req.depth) || req.depth < 0 || req.depth > MAX_DEPTH) {
        throw invalid('depth', `must be an integer from 0 to ${MAX_DEPTH}`);
      }
      const origin: WriteOrigin = {
        channel: ctx.channel === 'grpc' ? 'internal' : ctx.channel,
        kind: req.kind,
        depth: req.depth,
        sourceRunId: req.source_run_id === '' ? undefined : req.source_run_id,
        interactionId: ctx.requestId,
      };
      const results: BatchItemResult[] = [];
      const accepted: { index: number; draft: MemoryDraft }[] = [];
      for (const [index, item] of req.items.entries()) {
        try {
          accepted.push({ index, draft: await screenOrReject(deps, item, ctx, origin) });
          results.push({ index, deduplicated: false, content_flags: [] });
        } catch (err) {
          results.push({ index, deduplicated: false, content_flags: [], error: itemError(err) });
        }
      }
      if (req.atomic && accepted.length < req.items.length) {
        return { results, applied: false, deprecated_ids: [] };
      }
      if (accepted.length === 0 && req.deprecations.length === 0) {
        return { results, applied: false, deprecated_ids: [] };
      }
      const { results: stored, deprecatedIds } = await deps.writer.persist(
        accepted.map((a) => a.draft),
        callerOf(ctx.metadata),
        req.deprecations.map(deprecationFromProto),
      );
      fillStored(results, accepted, stored);
      return { results, applied: true, deprecated_ids: deprecatedIds };
    },
  };
}
