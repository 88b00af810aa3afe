import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** An OpenAPI document as parsed JSON. */
export type OpenApiDocument = Record<string, unknown>;

const DOC_ID = 'https://engram.invalid/openapi.json';

/** A JSON Pointer token (RFC 6901). */
function token(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Validates JSON bodies against the response schemas of an OpenAPI 3.1 document with Ajv's JSON
 * Schema 2020-12 validator (strict, every format checked), resolving `#/components/...` references
 * inside the document itself, exactly as a client generator would read them.
 */
export class OpenApiResponses {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(readonly doc: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(this.ajv);
    // The document's other members are not schemas; references point into them by JSON Pointer.
    for (const keyword of Object.keys(doc)) this.ajv.addKeyword(keyword);
    this.ajv.addSchema({ ...doc, $id: DOC_ID });
  }

  /** The operation of a method and OpenAPI path ("/memories/{id}"); throws when there is none. */
  operation(method: string, path: string): Record<string, unknown> {
    const paths = this.doc.paths;
    const item = isRecord(paths) ? paths[path] : undefined;
    const op = isRecord(item) ? item[method.toLowerCase()] : undefined;
    if (!isRecord(op)) throw new Error(`no operation ${method} ${path}`);
    return op;
  }

  /**
   * The JSON Pointer of the schema an operation declares for a status (`"default"` too) and media
   * type, following a response $ref. Throws when the operation declares no such response.
   */
  schemaPointer(method: string, path: string, status: string, mediaType = 'application/json'): string {
    const responses = this.operation(method, path).responses;
    if (!isRecord(responses) || !isRecord(responses[status])) {
      throw new Error(`${method} ${path} declares no ${status} response`);
    }
    let pointer = `#/paths/${token(path)}/${method.toLowerCase()}/responses/${status}`;
    let response = responses[status];
    const ref = response.$ref;
    if (typeof ref === 'string') {
      pointer = ref;
      const [, kind, name] = ref.split('/').slice(1);
      const components = this.doc.components;
      const group = isRecord(components) && kind !== undefined ? components[kind] : undefined;
      const target = isRecord(group) && name !== undefined ? group[name] : undefined;
      if (!isRecord(target)) throw new Error(`unresolved ${ref}`);
      response = target;
    }
    const content = response.content;
    if (!isRecord(content) || !isRecord(content[mediaType])) {
      throw new Error(`${method} ${path} ${status} has no ${mediaType} content`);
    }
    return `${pointer}/content/${token(mediaType)}/schema`;
  }

  /** Ajv's errors for a body against the schema at a pointer of the document ([] when valid). */
  errorsAt(pointer: string, body: unknown): ErrorObject[] {
    let validate = this.cache.get(pointer);
    if (validate === undefined) {
      validate = this.ajv.getSchema(DOC_ID + pointer);
      if (validate === undefined) throw new Error(`no schema at ${pointer}`);
      this.cache.set(pointer, validate);
    }
    return validate(body) ? [] : [...(validate.errors ?? [])];
  }

  /** Ajv's errors for a response body of an operation's status ([] when valid). */
  errors(
    method: string,
    path: string,
    status: number | 'default',
    body: unknown,
    mediaType?: string,
  ): ErrorObject[] {
    return this.errorsAt(this.schemaPointer(method, path, String(status), mediaType), body);
  }
}
