import { callerMetadata, type Caller } from '@engram/auth';
import { createClient, unary } from '@engram/grpc-kit';
import type { Deprecation, MemoryDraft } from '@engram/memory-model';
import { MemoryWriterServiceClient } from '@engram/proto/engram/memory/v1/memory_store';
import type { AuditEventInput, MemoryWriter } from '../domain/ports.ts';
import { deprecationToProto, draftToProto, writeResultFromProto } from '@engram/memories';

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
      { drafts: drafts.map(draftToProto), atomic: true, deprecations: deprecations.map(deprecationToProto) },
      callerMetadata(caller, this.internalToken),
    );
    return { results: res.results.map(writeResultFromProto), deprecatedIds: res.deprecated_ids };
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
