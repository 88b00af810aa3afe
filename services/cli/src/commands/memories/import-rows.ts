/**
 * The rows of an import file: NDJSON, one export row (engram.memory.v1.Memory in proto3 JSON) a line.
 * Each line is checked against the contract with the descriptor set, by the same rules the REST
 * gateway applies to POST /memories/import, so a malformed line is reported on its own with the field
 * at fault instead of failing the batch it would have travelled in.
 */
import { createReadStream } from 'node:fs';
import { createFileRegistry, fromBinary, fromJson, toBinary, type DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { readDescriptorSet } from '@engram/proto/descriptor';
import { Memory } from '@engram/proto/engram/memory/v1/memory';

let schema: DescMessage | undefined;

function memorySchema(): DescMessage {
  if (schema) return schema;
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readDescriptorSet()));
  const found = registry.getMessage('engram.memory.v1.Memory');
  if (!found) throw new Error('the descriptor set has no engram.memory.v1.Memory');
  schema = found;
  return found;
}

/** A line that is not an export row; message says why, in one line. */
export class RowError extends Error {}

/** The source id of a line (its `id`), or '' when it has none (or is not JSON). */
export function sourceIdOf(line: string): string {
  try {
    const v = JSON.parse(line) as { id?: unknown } | null;
    return typeof v?.id === 'string' ? v.id : '';
  } catch {
    return '';
  }
}

/** Parses one line into a Memory; throws RowError when it is not one. */
export function parseRow(line: string): Memory {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new RowError('not valid JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new RowError('not a JSON object');
  const s = memorySchema();
  try {
    return Memory.decode(toBinary(s, fromJson(s, json as Parameters<typeof fromJson>[1])));
  } catch (err) {
    throw new RowError(err instanceof Error ? err.message : String(err));
  }
}

/**
 * Lines in a file (what readline will yield: a last line without a newline counts), read in chunks:
 * the total of the progress bar, known before the first row is sent.
 */
export async function countLines(file: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
  }
  return last === 10 ? lines : lines + 1;
}
