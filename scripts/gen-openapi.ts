/**
 * Prints docs/openapi.json: the OpenAPI document the gateway serves at GET /openapi.json, built from
 * the same descriptor set and route table (make docs; CI checks it is current).
 */
import { createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { buildOpenApiDocument, RouteTable } from '@engram/gateway';
import { readDescriptorSet } from '@engram/proto/descriptor';

const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readDescriptorSet()));
process.stdout.write(
  `${JSON.stringify(buildOpenApiDocument(RouteTable.fromRegistry(registry), registry), null, 2)}\n`,
);
