import { callerOf, type Principal } from '@engram/auth';
import type { CallContext } from '@engram/grpc-kit';
import type { MemoryDraft } from '@engram/memory-model';
import type { MemoryWriter } from '../domain/ports.ts';
import { screenWrite, type PipelineSettings } from '../domain/write-pipeline.ts';
import type { WriteOrigin, WriteRequest } from '../domain/write-request.ts';

export interface IngestDeps {
  readonly writer: MemoryWriter;
  readonly settings: PipelineSettings;
}

/**
 * Screens one write; on a content-policy reject, records SECURITY_REJECTED through memory-store's
 * RecordAuditEvent (its own transaction, so it survives the failed request) and then throws the
 * SecurityRejectedError (422). If the event cannot be recorded, that failure (503) is thrown
 * instead: a rejection is never left unaudited, and nothing is stored either way.
 */
export async function screenOrReject(
  deps: IngestDeps,
  req: WriteRequest,
  ctx: CallContext<Principal>,
  origin: WriteOrigin,
): Promise<MemoryDraft> {
  const outcome = await screenWrite(ctx.principal, req, origin, deps.settings, ctx.signal);
  if (outcome.kind === 'rejected') {
    await deps.writer.recordEvent(outcome.audit, callerOf(ctx.metadata));
    throw outcome.error;
  }
  return outcome.draft;
}
