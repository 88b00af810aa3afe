import type { Metadata } from '@grpc/grpc-js';
import { createClient, forwardMetadata, unary } from '@engram/grpc-kit';
import { MemoryStoreServiceClient } from '@engram/proto/engram/memory/v1/memory_store';
import type { SingleDeprecator } from '../domain/ports.ts';

/** memory-store's public DeprecateMemory, called with the caller's key (author or privileged rules apply). */
export class GrpcSingleDeprecator implements SingleDeprecator {
  private clientInstance: MemoryStoreServiceClient | undefined;

  /** internalToken marks the call as made on the caller's behalf, so its rate budget is spent once. */
  constructor(
    private readonly address: () => string,
    private readonly internalToken: string,
  ) {}

  private get client(): MemoryStoreServiceClient {
    this.clientInstance ??= createClient(MemoryStoreServiceClient, this.address());
    return this.clientInstance;
  }

  async deprecate(
    req: { memoryId: string; agentId: string; supersededBy?: string | undefined; reason: string },
    caller: unknown,
  ): Promise<void> {
    await unary(
      this.client.deprecateMemory.bind(this.client),
      { id: req.memoryId, agent_id: req.agentId, reason: req.reason, superseded_by: req.supersededBy },
      forwardMetadata(caller as Metadata, this.internalToken),
    );
  }

  close(): void {
    this.clientInstance?.close();
  }
}
