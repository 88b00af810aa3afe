import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client, credentials, type MethodDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

/** One ServerReflectionRequest (field names as in reflection.proto: keepCase). */
export type ReflectionRequest =
  { list_services: string } | { file_containing_symbol: string } | { file_by_filename: string };

/** The parts of a ServerReflectionResponse the tests read. */
export interface ReflectionResponse {
  list_services_response?: { service: { name: string }[] };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}

/** The reflection.proto files that @grpc/reflection ships (build/proto/grpc/reflection/<v>/). */
function reflectionProto(version: 'v1' | 'v1alpha'): string {
  const entry = createRequire(import.meta.url).resolve('@grpc/reflection');
  return join(dirname(entry), '..', 'proto', 'grpc', 'reflection', version, 'reflection.proto');
}

/**
 * A minimal gRPC server reflection client, as grpcurl is one: each ask() opens a
 * ServerReflectionInfo stream, sends one request and returns the one response. It sends no
 * authorization metadata, on purpose.
 */
export class ReflectionClient {
  private readonly client: Client;
  private readonly method: MethodDefinition<ReflectionRequest, ReflectionResponse>;

  constructor(address: string, version: 'v1' | 'v1alpha' = 'v1') {
    const definition = loadSync(reflectionProto(version), { keepCase: true, defaults: true, oneofs: true });
    const service = definition[`grpc.reflection.${version}.ServerReflection`];
    if (!service || !('ServerReflectionInfo' in service)) throw new Error(`no ServerReflection ${version}`);
    this.method = service.ServerReflectionInfo as MethodDefinition<ReflectionRequest, ReflectionResponse>;
    this.client = new Client(address, credentials.createInsecure());
  }

  ask(request: ReflectionRequest): Promise<ReflectionResponse> {
    return new Promise((resolve, reject) => {
      const call = this.client.makeBidiStreamRequest(
        this.method.path,
        this.method.requestSerialize,
        this.method.responseDeserialize,
      );
      let answered = false;
      call.on('data', (response: ReflectionResponse) => {
        answered = true;
        resolve(response);
      });
      call.on('error', reject);
      call.on('end', () => {
        if (!answered) reject(new Error('the reflection stream ended without a response'));
      });
      call.write(request);
      call.end();
    });
  }

  /** The service names list_services returns, sorted. */
  async listServices(): Promise<string[]> {
    const res = await this.ask({ list_services: '*' });
    if (!res.list_services_response) throw new Error(`no list_services_response: ${JSON.stringify(res)}`);
    return res.list_services_response.service.map((s) => s.name).sort();
  }

  close(): void {
    this.client.close();
  }
}
