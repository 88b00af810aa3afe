import { ScalarType, type DescEnum, type DescField, type DescMessage } from '@bufbuild/protobuf';
import type { JsonObject } from '../gateway-error.ts';
import { leadingComment } from './comments.ts';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) or any other OpenAPI object. */
export type Schema = JsonObject;

export const SCHEMA_REF = '#/components/schemas/';

/** The `error` object of the error body; a google.rpc.Status inside a response is rendered as one. */
export const ERROR_STATUS_SCHEMA = 'ErrorStatus';

/**
 * JSON Schemas of protobuf messages in exactly the proto3 JSON form the gateway writes (toJson with
 * useProtoFieldName and alwaysEmitImplicit, transcode.ts) and reads (fromJson, request-binding.ts):
 * snake_case proto field names, 64-bit integers as decimal strings, enums by value name, well-known
 * types in their JSON form. Unknown fields are a 400, so every message schema is closed
 * (additionalProperties false). No field is `required`: proto3 has no required fields and the protos
 * carry no google.api.field_behavior annotations; the services validate presence themselves.
 *
 * Each message or enum is a component named by its full proto name, registered on first use, so the
 * document holds exactly the types its operations reach.
 */
export class SchemaComponents {
  private readonly schemas = new Map<string, Schema>();

  /** A reference to the schema of a message or enum (well-known types are inlined). */
  ref(desc: DescMessage | DescEnum): Schema {
    if (desc.kind === 'message') {
      const wkt = wellKnownSchema(desc);
      if (wkt !== undefined) return wkt;
    } else if (desc.typeName === 'google.protobuf.NullValue') {
      return { type: 'null' };
    }
    if (!this.schemas.has(desc.typeName)) {
      // Registered before it is built, so recursive messages end in a reference to themselves.
      this.schemas.set(desc.typeName, {});
      this.schemas.set(desc.typeName, desc.kind === 'message' ? this.message(desc) : enumSchema(desc));
    }
    return { $ref: SCHEMA_REF + desc.typeName };
  }

  /** The property schemas of a message's fields, by proto field name, in declaration order. */
  properties(msg: DescMessage): Schema {
    const props: Schema = {};
    for (const f of msg.fields) props[f.name] = this.field(f);
    return props;
  }

  /** The schema of one field's JSON value (a list, a map or a singular value), with its comment. */
  field(f: DescField): Schema {
    let schema: Schema;
    switch (f.fieldKind) {
      case 'scalar':
        schema = scalarSchema(f.scalar);
        break;
      case 'enum':
        schema = this.ref(f.enum);
        break;
      case 'message':
        schema = this.ref(f.message);
        break;
      case 'list':
        schema = {
          type: 'array',
          items:
            f.listKind === 'scalar'
              ? scalarSchema(f.scalar)
              : this.ref(f.listKind === 'enum' ? f.enum : f.message),
        };
        break;
      case 'map':
        schema = {
          type: 'object',
          ...mapKeySchema(f.mapKey),
          additionalProperties:
            f.mapKind === 'scalar'
              ? scalarSchema(f.scalar)
              : this.ref(f.mapKind === 'enum' ? f.enum : f.message),
        };
        break;
    }
    return documented(schema, leadingComment(f), f.deprecated);
  }

  /** Every registered schema, sorted by name (a deterministic document). */
  all(): Record<string, Schema> {
    return Object.fromEntries([...this.schemas].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  private message(msg: DescMessage): Schema {
    const schema: Schema = { type: 'object', properties: this.properties(msg), additionalProperties: false };
    const exclusive = oneofConstraints(msg);
    if (exclusive !== undefined) schema.dependentSchemas = exclusive;
    return documented(schema, leadingComment(msg), msg.deprecated);
  }
}

/** Adds a description (and deprecated) next to a schema, without touching a shared object. */
export function documented(schema: Schema, description: string | undefined, deprecated = false): Schema {
  if (description === undefined && !deprecated) return schema;
  return {
    ...schema,
    ...(description !== undefined ? { description } : {}),
    ...(deprecated ? { deprecated: true } : {}),
  };
}

/**
 * A oneof's members exclude each other: when one is present, no other may be (fromJson rejects
 * two members of one oneof). Proto3 `optional` fields are synthetic oneofs and are not listed.
 */
function oneofConstraints(msg: DescMessage): Schema | undefined {
  const out: Schema = {};
  for (const oneof of msg.oneofs) {
    for (const f of oneof.fields) {
      const others = oneof.fields.filter((o) => o !== f).map((o): [string, boolean] => [o.name, false]);
      if (others.length > 0) out[f.name] = { properties: Object.fromEntries(others) };
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function enumSchema(e: DescEnum): Schema {
  return documented({ type: 'string', enum: e.values.map((v) => v.name) }, leadingComment(e), e.deprecated);
}

export function scalarSchema(scalar: ScalarType): Schema {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: 'string' };
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.BYTES:
      return { type: 'string', contentEncoding: 'base64' };
    case ScalarType.DOUBLE:
      return { type: 'number', format: 'double' };
    case ScalarType.FLOAT:
      return { type: 'number', format: 'float' };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: 'integer', format: 'int32' };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: 'integer', minimum: 0, maximum: 4294967295 };
    // The JSON mapping writes 64-bit integers as decimal strings (they exceed a double's precision).
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: 'string', format: 'int64', pattern: '^-?[0-9]+$' };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: 'string', pattern: '^[0-9]+$' };
  }
}

/** Map keys are JSON object keys, so always strings; integer and bool keys are spelled out. */
function mapKeySchema(key: ScalarType): Schema {
  switch (key) {
    case ScalarType.STRING:
      return {};
    case ScalarType.BOOL:
      return { propertyNames: { enum: ['true', 'false'] } };
    default:
      return { propertyNames: { pattern: '^-?[0-9]+$' } };
  }
}

const WRAPPERS: Readonly<Record<string, ScalarType>> = {
  'google.protobuf.DoubleValue': ScalarType.DOUBLE,
  'google.protobuf.FloatValue': ScalarType.FLOAT,
  'google.protobuf.Int64Value': ScalarType.INT64,
  'google.protobuf.UInt64Value': ScalarType.UINT64,
  'google.protobuf.Int32Value': ScalarType.INT32,
  'google.protobuf.UInt32Value': ScalarType.UINT32,
  'google.protobuf.BoolValue': ScalarType.BOOL,
  'google.protobuf.StringValue': ScalarType.STRING,
  'google.protobuf.BytesValue': ScalarType.BYTES,
};

/** The JSON form of the well-known types that have a special one (proto3 JSON mapping). */
function wellKnownSchema(msg: DescMessage): Schema | undefined {
  const wrapped = WRAPPERS[msg.typeName];
  if (wrapped !== undefined) return scalarSchema(wrapped);
  switch (msg.typeName) {
    case 'google.protobuf.Timestamp':
      return { type: 'string', format: 'date-time' };
    case 'google.protobuf.Duration':
      return { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$' };
    case 'google.protobuf.FieldMask':
      return { type: 'string', description: 'Comma-separated field paths.' };
    case 'google.protobuf.Struct':
      return { type: 'object' };
    case 'google.protobuf.Value':
      return {};
    case 'google.protobuf.ListValue':
      return { type: 'array' };
    case 'google.protobuf.Empty':
      return { type: 'object', additionalProperties: false };
    case 'google.protobuf.Any':
      return { type: 'object', required: ['@type'], properties: { '@type': { type: 'string' } } };
    case 'google.rpc.Status':
      return { $ref: SCHEMA_REF + ERROR_STATUS_SCHEMA };
    default:
      return undefined;
  }
}
