import { checkText } from './check-text.ts';
import { METADATA_KEY_MAX_LENGTH } from './field-limits.ts';
import { formatCodePoint, scanText } from './text-scan.ts';
import type { ViolationList } from './violation-list.ts';

/**
 * Stage 1 rules for metadata, a free JSON object.
 *
 * Depth convention: the top-level object is depth 0 and its values are depth 1; a value inside an
 * object or array at depth d is at depth d + 1. With METADATA_MAX_DEPTH = 5, `{"a":{"b":{"c":{"d":
 * {"e":1}}}}}` (the 1 is at depth 5) is accepted and one more level is refused. An empty object or
 * array at depth 5 is fine (it holds nothing at depth 6). The key and string rules below hold at
 * every depth.
 *
 * Key count: every key of every object at every level, including objects inside arrays; array
 * indexes are not keys. String values follow the content rules (tab, newline and carriage return
 * allowed; at most contentMaxLength code points); keys are 1-256 code points with no control
 * character at all. Only JSON values are accepted: plain objects, arrays, strings, finite numbers,
 * booleans and null.
 *
 * The walk uses an explicit stack and never descends below the maximum depth, so 10,000 levels cost
 * as much as six. Too deep is reported once, at the first path found; the subtree below the limit
 * is not inspected (its keys are not counted, its strings not scanned). A value referenced twice (a cycle, or a shared sub-object) is refused: JSON and
 * protobuf Struct input never has one, and refusing it keeps the walk linear in the input size.
 */
export interface MetadataLimits {
  readonly maxDepth: number;
  readonly maxKeys: number;
  /** Maximum code points of one string value. */
  readonly maxStringLength: number;
}

type Container = readonly unknown[] | Readonly<Record<string, unknown>>;

interface Frame {
  readonly node: Container;
  /** The object's keys; undefined for an array. */
  readonly keys: readonly string[] | undefined;
  index: number;
  readonly path: string;
  /** Depth of this container's values. */
  readonly childDepth: number;
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isSimpleKey(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    const letter = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
    const digitOrDash = (c >= 0x30 && c <= 0x39) || c === 0x2d;
    if (!(letter || (i > 0 && digitOrDash))) return false;
  }
  return key.length > 0;
}

/** metadata.a.b for simple keys, metadata["a b"] otherwise. */
function keyPath(parent: string, key: string): string {
  return isSimpleKey(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/** A key problem, described without echoing the key; undefined when the key is fine. */
function keyProblem(
  key: string,
):
  | { reason: 'INVALID_VALUE' | 'TOO_LONG' | 'CONTROL_CHARACTER' | 'INVALID_CHARACTERS'; what: string }
  | undefined {
  if (key.length === 0) return { reason: 'INVALID_VALUE', what: 'an empty key' };
  const scan = scanText(key, METADATA_KEY_MAX_LENGTH, false);
  if (scan.tooLong) {
    return { reason: 'TOO_LONG', what: `a key longer than ${METADATA_KEY_MAX_LENGTH} characters` };
  }
  if (scan.control) {
    return {
      reason: 'CONTROL_CHARACTER',
      what: `a key with the control character ${formatCodePoint(scan.control.codePoint)}`,
    };
  }
  if (scan.loneSurrogateOffset !== undefined) {
    return { reason: 'INVALID_CHARACTERS', what: 'a key with an unpaired UTF-16 surrogate' };
  }
  return undefined;
}

export function checkMetadata(out: ViolationList, value: unknown, limits: MetadataLimits): void {
  if (value === undefined || value === null) return;
  if (!isPlainObject(value)) {
    out.add('metadata', 'INVALID_VALUE', 'metadata must be a JSON object');
    return;
  }
  const seen = new Set<object>([value]);
  const stack: Frame[] = [];
  let totalKeys = 0;
  let depthReported = false;

  const open = (node: Container, path: string, childDepth: number): void => {
    const keys = Array.isArray(node) ? undefined : Object.keys(node);
    if (keys) {
      const before = totalKeys;
      totalKeys += keys.length;
      if (before <= limits.maxKeys && totalKeys > limits.maxKeys) {
        out.add(
          'metadata',
          'TOO_MANY_KEYS',
          `metadata must have at most ${limits.maxKeys} keys in total, counting every level`,
        );
      }
    }
    stack.push({ node, keys, index: 0, path, childDepth });
  };

  const visit = (child: unknown, path: string, depth: number): void => {
    if (depth > limits.maxDepth) {
      if (!depthReported) {
        depthReported = true;
        out.add(
          path,
          'TOO_DEEP',
          `metadata must be nested at most ${limits.maxDepth} levels (the top-level object's values are level 1)`,
        );
      }
      return;
    }
    if (child === null || typeof child === 'boolean') return;
    if (typeof child === 'string') {
      checkText(out, path, child, { maxLength: limits.maxStringLength, allowLineBreaks: true });
      return;
    }
    if (typeof child === 'number') {
      if (!Number.isFinite(child)) out.add(path, 'INVALID_VALUE', `${path} must be a finite number`);
      return;
    }
    if (Array.isArray(child) || isPlainObject(child)) {
      if (seen.has(child)) {
        out.add(path, 'INVALID_VALUE', `${path} repeats a value referenced elsewhere in metadata`);
        return;
      }
      seen.add(child);
      open(child as Container, path, depth + 1);
      return;
    }
    out.add(path, 'INVALID_VALUE', `${path} is not a JSON value`);
  };

  open(value, 'metadata', 1);
  while (!out.full) {
    const frame = stack[stack.length - 1];
    if (frame === undefined) break;
    if (frame.keys === undefined) {
      const arr = frame.node as readonly unknown[];
      if (frame.index >= arr.length) {
        stack.pop();
        continue;
      }
      const i = frame.index++;
      visit(arr[i], `${frame.path}[${i}]`, frame.childDepth);
    } else {
      const key = frame.keys[frame.index++];
      if (key === undefined) {
        stack.pop();
        continue;
      }
      const problem = keyProblem(key);
      if (problem) {
        // The key is not echoed; its value is not inspected (the write is refused anyway).
        out.add(frame.path, problem.reason, `${frame.path} has ${problem.what}`);
        continue;
      }
      const obj = frame.node as Readonly<Record<string, unknown>>;
      visit(obj[key], keyPath(frame.path, key), frame.childDepth);
    }
  }
}
