import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import type { Server, ServiceDefinition } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { readDescriptorSet } from '@engram/proto/descriptor';

type PackageDefinition = ConstructorParameters<typeof ReflectionService>[0];

let descriptorFiles: Buffer[] | undefined;

/**
 * Every file of the descriptor set that `buf build` wrote (ours, google/api, google/rpc, the
 * well-known types, grpc/health), one encoded FileDescriptorProto each, read once per process. The
 * set is `repeated FileDescriptorProto file = 1`, so the files are cut out of it byte for byte
 * rather than decoded and re-encoded (which costs ~80 ms at start). Not @grpc/proto-loader's
 * loadFileDescriptorSetFromBuffer: it re-serializes the files per package without their imports (and
 * drops files that define no message or service), so grpcurl could not resolve a method's types.
 */
function engramDescriptorFiles(): Buffer[] {
  if (descriptorFiles) return descriptorFiles;
  const reader = new BinaryReader(readDescriptorSet());
  const files: Buffer[] = [];
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) files.push(Buffer.from(reader.bytes()));
    else reader.skip(wireType);
  }
  descriptorFiles = files;
  return files;
}

/** The fully qualified service names of a definition, from its method paths ('/pkg.Service/Method'). */
function serviceNamesOf(definition: ServiceDefinition): string[] {
  return Object.values(definition).map((method) => method.path.split('/')[1] ?? '');
}

/**
 * Registers grpc.reflection.v1 and v1alpha, so that grpcurl, Postman or Evans can list and describe
 * the services this server hosts (and only those) without a copy of proto/. It is added with
 * addService directly, not through bindService: reflection needs no API key, as it reveals only the
 * public contract that proto/ and @engram/proto publish anyway (see docs/decisions.md).
 */
export function addReflection(
  server: Pick<Server, 'addService'>,
  hosted: readonly ServiceDefinition[],
): void {
  // @grpc/reflection reads only the fileDescriptorProtos of each entry; one entry carries them all.
  const pkg: PackageDefinition = {
    'engram.descriptor_set': {
      format: 'Protocol Buffer 3 DescriptorProto',
      type: {},
      fileDescriptorProtos: engramDescriptorFiles(),
    },
  };
  const services = [...new Set(hosted.flatMap(serviceNamesOf))];
  new ReflectionService(pkg, { services }).addToServer(server);
}
