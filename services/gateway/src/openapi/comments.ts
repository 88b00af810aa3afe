import type { DescEnum, DescField, DescFile, DescMessage, DescMethod, DescService } from '@bufbuild/protobuf';

/**
 * The leading comments of proto declarations, read from the source info `buf build` keeps in the
 * descriptor set, so that the OpenAPI descriptions are the comments of proto/ and nothing else.
 */

/** Declarations that carry a comment in the OpenAPI document. */
export type Commented = DescMessage | DescField | DescEnum | DescService | DescMethod;

// Field numbers of FileDescriptorProto, DescriptorProto and ServiceDescriptorProto
// (google/protobuf/descriptor.proto), the steps of a source location path.
const FILE_MESSAGE = 4;
const FILE_ENUM = 5;
const FILE_SERVICE = 6;
const MESSAGE_FIELD = 2;
const MESSAGE_NESTED = 3;
const MESSAGE_ENUM = 4;
const SERVICE_METHOD = 2;

const indexes = new WeakMap<DescFile, Map<string, string>>();

/**
 * The leading comment of a declaration, its line breaks folded into spaces (blank lines still
 * separate paragraphs); undefined when it has none.
 */
export function leadingComment(desc: Commented): string | undefined {
  const file = fileOf(desc);
  let index = indexes.get(file);
  if (index === undefined) {
    index = new Map();
    for (const loc of file.proto.sourceCodeInfo?.location ?? []) {
      if (loc.leadingComments !== undefined && loc.leadingComments.trim() !== '') {
        index.set(loc.path.join('.'), loc.leadingComments);
      }
    }
    indexes.set(file, index);
  }
  const raw = index.get(pathOf(desc).join('.'));
  if (raw === undefined) return undefined;
  return raw
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
    .filter((paragraph) => paragraph !== '')
    .join('\n\n');
}

function fileOf(desc: Commented): DescFile {
  switch (desc.kind) {
    case 'field':
      return desc.parent.file;
    case 'rpc':
      return desc.parent.file;
    default:
      return desc.file;
  }
}

function messagePath(msg: DescMessage): number[] {
  if (msg.parent === undefined) return [FILE_MESSAGE, msg.file.messages.indexOf(msg)];
  return [...messagePath(msg.parent), MESSAGE_NESTED, msg.parent.nestedMessages.indexOf(msg)];
}

function pathOf(desc: Commented): number[] {
  switch (desc.kind) {
    case 'message':
      return messagePath(desc);
    case 'field':
      return [...messagePath(desc.parent), MESSAGE_FIELD, desc.parent.proto.field.indexOf(desc.proto)];
    case 'enum':
      return desc.parent === undefined
        ? [FILE_ENUM, desc.file.enums.indexOf(desc)]
        : [...messagePath(desc.parent), MESSAGE_ENUM, desc.parent.nestedEnums.indexOf(desc)];
    case 'service':
      return [FILE_SERVICE, desc.file.services.indexOf(desc)];
    case 'rpc':
      return [
        FILE_SERVICE,
        desc.parent.file.services.indexOf(desc.parent),
        SERVICE_METHOD,
        desc.parent.methods.indexOf(desc),
      ];
  }
}
