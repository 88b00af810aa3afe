import { callerMetadata, type Caller } from '@engram/auth';
import { createClient, unary, type InProcessInvoker } from '@engram/grpc-kit';
import type { Deprecation, MemoryDraft, WriteResult } from '@engram/memory-model';
import {
  MemoryWriterServiceClient,
  MemoryWriterServiceService,
  type PersistMemoriesRequest,
  type PersistMemoriesResponse,
} from '@engram/proto/engram/memory/v1/memory_store';
import type { AuditEventInput, MemoryWriter } from '../domain/ports.ts';
import { deprecationToProto, draftToProto, writeResultFromProto } from '@engram/memories';

/** One all-or-nothing PersistMemories: the drafts and the deprecations they carry. */
function persistRequest(
  drafts: readonly MemoryDraft[],
  deprecations: readonly Deprecation[],
): PersistMemoriesRequest {
  return {
    drafts: drafts.map(draftToProto),
    atomic: true,
    deprecations: deprecations.map(deprecationToProto),
  };
}

function persistAnswer(res: PersistMemoriesResponse): { results: WriteResult[]; deprecatedIds: string[] } {
  return { results: res.results.map(writeResultFromProto), deprecatedIds: res.deprecated_ids };
}

/** memory-store's MemoryWriterService over gRPC, with the caller's key and the internal token. */
export class GrpcMemoryWriter implements MemoryWriter {
  private clientInstance: MemoryWriterServiceClient | undefined;

  /** address: "host:port", or a function giving it once known (embedded mode listens on port 0 in tests). */
  constructor(
    private readonly address: string | (() => string),
    private readonly internalToken: string,
  ) {}

  private get client(): MemoryWriterServiceClient {
    this.clientInstance ??= createClient(
      MemoryWriterServiceClient,
      typeof this.address === 'string' ? this.address : this.address(),
    );
    return this.clientInstance;
  }

  async persist(drafts: readonly MemoryDraft[], caller: Caller, deprecations: readonly Deprecation[] = []) {
    const res = await unary(
      this.client.persistMemories.bind(this.client),
      persistRequest(drafts, deprecations),
      callerMetadata(caller, this.internalToken),
    );
    return persistAnswer(res);
  }

  async recordEvent(event: AuditEventInput, caller: Caller): Promise<void> {
    await unary(
      this.client.recordAuditEvent.bind(this.client),
      event,
      callerMetadata(caller, this.internalToken),
    );
  }

  close(): void {
    this.clientInstance?.close();
  }
}

/**
 * memory-store's MemoryWriterService in the same process (embedded, EMBEDDED_IN_PROCESS): its
 * handlers called with the metadata GrpcMemoryWriter sends, so that authentication of the internal
 * token, the channel proof and the audit record are the same as over gRPC.
 */
export class InProcessMemoryWriter implements MemoryWriter {
  constructor(
    private readonly invoker: () => InProcessInvoker,
    private readonly internalToken: string,
  ) {}

  async persist(drafts: readonly MemoryDraft[], caller: Caller, deprecations: readonly Deprecation[] = []) {
    const res = await this.invoker().callPeer(
      MemoryWriterServiceService.persistMemories,
      persistRequest(drafts, deprecations),
      callerMetadata(caller, this.internalToken),
    );
    return persistAnswer(res);
  }

  async recordEvent(event: AuditEventInput, caller: Caller): Promise<void> {
    await this.invoker().callPeer(
      MemoryWriterServiceService.recordAuditEvent,
      event,
      callerMetadata(caller, this.internalToken),
    );
  }

  /** Nothing to close: the handlers belong to the server, which the runtime stops. */
  close(): void {}
}
