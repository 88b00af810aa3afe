import { callerMetadata, type Caller } from '@engram/auth';
import { createClient, engramErrorOf, unary, type InProcessInvoker } from '@engram/grpc-kit';
import {
  IngestServiceClient,
  IngestServiceService,
  type IngestInternalResponse,
} from '@engram/proto/engram/ingest/v1/ingest';
import type { InternalWrite, PipelineAnswer, WritePipeline } from '../domain/ports.ts';
import { internalWriteToProto } from './ingest-mapping.ts';

function pipelineAnswer(res: IngestInternalResponse): PipelineAnswer {
  return {
    applied: res.applied,
    deprecated_ids: res.deprecated_ids,
    // A refused item's google.rpc.Status becomes the domain error it stands for.
    results: res.results.map(({ error, ...item }) =>
      error === undefined ? item : { ...item, error: engramErrorOf(error) },
    ),
  };
}

/** ingest-security's IngestInternal over gRPC, with the caller's key and the internal service token. */
export class GrpcWritePipeline implements WritePipeline {
  private clientInstance: IngestServiceClient | undefined;

  /** address: "host:port", or a function giving it once known (embedded mode listens on port 0). */
  constructor(
    private readonly address: () => string,
    private readonly internalToken: string,
  ) {}

  private get client(): IngestServiceClient {
    this.clientInstance ??= createClient(IngestServiceClient, this.address());
    return this.clientInstance;
  }

  async ingest(req: InternalWrite, caller: Caller): Promise<PipelineAnswer> {
    const res = await unary(
      this.client.ingestInternal.bind(this.client),
      internalWriteToProto(req),
      callerMetadata(caller, this.internalToken),
    );
    return pipelineAnswer(res);
  }

  close(): void {
    this.clientInstance?.close();
  }
}

/**
 * ingest-security's IngestInternal in the same process (embedded, EMBEDDED_IN_PROCESS): its handler
 * called with the metadata GrpcWritePipeline sends (the caller's key and the internal token).
 */
export class InProcessWritePipeline implements WritePipeline {
  constructor(
    private readonly invoker: () => InProcessInvoker,
    private readonly internalToken: string,
  ) {}

  async ingest(req: InternalWrite, caller: Caller): Promise<PipelineAnswer> {
    const res = await this.invoker().callPeer(
      IngestServiceService.ingestInternal,
      internalWriteToProto(req),
      callerMetadata(caller, this.internalToken),
    );
    return pipelineAnswer(res);
  }

  /** Nothing to close: the handlers belong to the server, which the runtime stops. */
  close(): void {}
}
