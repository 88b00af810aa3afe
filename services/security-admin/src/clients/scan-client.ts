import type { Metadata } from '@grpc/grpc-js';
import { createClient, forwardMetadata, unary } from '@engram/grpc-kit';
import {
  IngestServiceClient,
  type ScanContentRequest,
  type ScanContentResponse,
} from '@engram/proto/engram/ingest/v1/ingest';

/** ingest-security's internal ScanContent, called with the caller's key and the internal token. */
export class GrpcScanClient {
  private clientInstance: IngestServiceClient | undefined;

  constructor(
    private readonly address: () => string,
    private readonly internalToken: string,
  ) {}

  private get client(): IngestServiceClient {
    this.clientInstance ??= createClient(IngestServiceClient, this.address());
    return this.clientInstance;
  }

  scan(req: ScanContentRequest, caller: Metadata): Promise<ScanContentResponse> {
    return unary(this.client.scanContent.bind(this.client), req, forwardMetadata(caller, this.internalToken));
  }

  close(): void {
    this.clientInstance?.close();
  }
}
