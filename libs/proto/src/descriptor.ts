import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Path of the descriptor set that `buf build` writes (make generate); the gateway loads it. */
export const descriptorSetPath = fileURLToPath(new URL('../descriptor.binpb', import.meta.url));

/** Reads the descriptor set (FileDescriptorSet, binary). */
export function readDescriptorSet(): Uint8Array {
  return readFileSync(descriptorSetPath);
}
