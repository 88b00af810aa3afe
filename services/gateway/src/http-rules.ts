import {
  getOption,
  hasOption,
  toBinary,
  type DescMethod,
  type Message,
  type Registry,
} from '@bufbuild/protobuf';
import { HttpRule } from '@engram/proto/google/api/http';

/** One HTTP binding of an RPC: a verb, a path template and where the body goes. */
export interface HttpBinding {
  /** Upper-case HTTP method (GET, POST, ... or a custom verb). */
  readonly httpMethod: string;
  readonly path: string;
  /** "" (no body), "*" (the whole request) or the name of one request field. */
  readonly body: string;
  /** "" (the whole response) or the name of one response field. */
  readonly responseBody: string;
}

export class HttpRuleError extends Error {
  override readonly name = 'HttpRuleError';
}

/**
 * The google.api.http bindings of a method (the rule plus its additional_bindings), read from the
 * method options through the extension the descriptor set declares. Empty when the method has none.
 */
export function readHttpBindings(registry: Registry, method: DescMethod): HttpBinding[] {
  const ext = registry.getExtension('google.api.http');
  if (ext === undefined) {
    throw new HttpRuleError('the descriptor set does not declare the google.api.http extension');
  }
  if (!hasOption(method, ext) || ext.message === undefined) return [];
  // A message-typed extension yields a message; it is re-decoded with the generated HttpRule type
  // to be read with static types.
  const option = getOption(method, ext) as Message;
  const rule = HttpRule.decode(toBinary(ext.message, option));
  const where = `${method.parent.typeName}.${method.name}`;
  const out = [toBinding(rule, where)];
  for (const extra of rule.additional_bindings) {
    if (extra.additional_bindings.length > 0) {
      throw new HttpRuleError(`${where}: additional_bindings must not nest`);
    }
    out.push(toBinding(extra, where));
  }
  return out.filter((b): b is HttpBinding => b !== undefined);
}

function toBinding(rule: HttpRule, where: string): HttpBinding | undefined {
  const base = { body: rule.body, responseBody: rule.response_body };
  if (rule.get !== undefined) return { httpMethod: 'GET', path: rule.get, ...base };
  if (rule.put !== undefined) return { httpMethod: 'PUT', path: rule.put, ...base };
  if (rule.post !== undefined) return { httpMethod: 'POST', path: rule.post, ...base };
  if (rule.delete !== undefined) return { httpMethod: 'DELETE', path: rule.delete, ...base };
  if (rule.patch !== undefined) return { httpMethod: 'PATCH', path: rule.patch, ...base };
  if (rule.custom !== undefined) {
    if (!/^[A-Za-z]+$/.test(rule.custom.kind)) {
      throw new HttpRuleError(`${where}: invalid custom verb ${JSON.stringify(rule.custom.kind)}`);
    }
    return { httpMethod: rule.custom.kind.toUpperCase(), path: rule.custom.path, ...base };
  }
  return undefined;
}
