import {
  createFileRegistry,
  fromBinary,
  getOption,
  hasOption,
  toBinary,
  type DescMethod,
  type Message,
  type Registry,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema, MethodOptions_IdempotencyLevel } from '@bufbuild/protobuf/wkt';
import { readDescriptorSet } from '@engram/proto/descriptor';
import { HttpRule } from '@engram/proto/google/api/http';

let writes: ReadonlySet<string> | undefined;

/**
 * The gRPC paths of the RPCs an Idempotency-Key applies to, read from the contract rather than kept
 * by hand: unary RPCs of the public API (they have a google.api.http binding) bound to another verb
 * than GET and not declared `idempotency_level = NO_SIDE_EFFECTS` (the reads that take a body, e.g.
 * POST /memories/query). Left out on purpose: internal RPCs (no HTTP binding), called by the service
 * that took the key, which does not forward it (forwardMetadata), so the record is taken once, where
 * the request entered. An answer that carries a secret (CreateKey's raw API key, marked `debug_redact`)
 * is kept like any other: the store seals every answer it keeps (@engram/idempotency's AnswerSeal).
 */
export function idempotentWriteMethods(descriptorSet: Uint8Array = readDescriptorSet()): ReadonlySet<string> {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet));
  const out = new Set<string>();
  for (const file of registry.files) {
    for (const service of file.services) {
      for (const method of service.methods) {
        if (method.methodKind !== 'unary') continue;
        if (method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS) continue;
        if (httpVerbs(registry, method).some((verb) => verb !== 'get')) {
          out.add(`/${service.typeName}/${method.name}`);
        }
      }
    }
  }
  return out;
}

/** Whether an Idempotency-Key applies to the RPC at this path (the set is read once per process). */
export function isIdempotentWrite(path: string): boolean {
  writes ??= idempotentWriteMethods();
  return writes.has(path);
}

/** The verbs (get, post, put, patch, delete or a custom one) of the RPC's google.api.http bindings. */
function httpVerbs(registry: Registry, method: DescMethod): string[] {
  const ext = registry.getExtension('google.api.http');
  if (ext === undefined || ext.message === undefined || !hasOption(method, ext)) return [];
  const rule = HttpRule.decode(toBinary(ext.message, getOption(method, ext) as Message));
  return [rule, ...rule.additional_bindings].map(verbOf);
}

function verbOf(rule: HttpRule): string {
  if (rule.get !== undefined) return 'get';
  if (rule.put !== undefined) return 'put';
  if (rule.post !== undefined) return 'post';
  if (rule.delete !== undefined) return 'delete';
  if (rule.patch !== undefined) return 'patch';
  return rule.custom?.kind.toLowerCase() ?? '';
}
