import type { Metadata } from '@grpc/grpc-js';
import { createClient, forwardMetadata, unary } from '@engram/grpc-kit';
import type { Deprecation } from '@engram/proto/engram/memory/v1/memory';
import { MemoryWriterServiceClient, type MemoryDraft } from '@engram/proto/engram/memory/v1/memory_store';
import type { AuditEventInput, MemoryWriter } from '../domain/ports.ts';

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

  async persist(drafts: MemoryDraft[], caller: unknown, deprecations: readonly Deprecation[] = []) {
    const md = forwardMetadata(caller as Metadata, this.internalToken);
    const res = await unary(
      this.client.persistMemories.bind(this.client),
      { drafts, atomic: true, deprecations: [...deprecations] },
      md,
    );
    return { results: res.results, deprecatedIds: res.deprecated_ids };
  }

  async recordEvent(event: AuditEventInput, caller: unknown): Promise<void> {
    const md = forwardMetadata(caller as Metadata, this.internalToken);
    await unary(this.client.recordAuditEvent.bind(this.client), event, md);
  }

  close(): void {
    this.clientInstance?.close();
  }
}
