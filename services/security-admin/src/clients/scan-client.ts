import type { Metadata } from '@grpc/grpc-js';
import { createClient, forwardMetadata, unary, type InProcessInvoker } from '@engram/grpc-kit';
import {
  IngestServiceClient,
  IngestServiceService,
  type ScanContentRequest,
  type ScanContentResponse,
} from '@engram/proto/engram/ingest/v1/ingest';

/** What security-admin's scan handler asks ingest-security. */
export interface ScanClient {
  scan(req: ScanContentRequest, caller: Metadata): Promise<ScanContentResponse>;
  close(): void;
}

/** ingest-security's internal ScanContent, called with the caller's key and the internal token. */
export class GrpcScanClient implements ScanClient {
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

/**
 * ingest-security's ScanContent in the same process (embedded, EMBEDDED_IN_PROCESS), called with the
 * metadata GrpcScanClient forwards.
 */
export class InProcessScanClient implements ScanClient {
  constructor(
    private readonly invoker: () => InProcessInvoker,
    private readonly internalToken: string,
  ) {}

  scan(req: ScanContentRequest, caller: Metadata): Promise<ScanContentResponse> {
    return this.invoker().callPeer(
      IngestServiceService.scanContent,
      req,
      forwardMetadata(caller, this.internalToken),
    );
  }

  /** Nothing to close: the handlers belong to the server, which the runtime stops. */
  close(): void {}
}
