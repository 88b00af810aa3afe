import { InvalidArgumentError, type FieldViolation } from '@engram/errors';
import { isMemoryType, MEMORY_TYPES, SCOPES, TRUST_LEVELS } from '@engram/memory-model';
import { DEFAULT_SCOPE_BY_TYPE } from '../default-scope.ts';
import { checkMetadata } from './check-metadata.ts';
import { checkText, type TextRule } from './check-text.ts';
import {
  ENTITY_ID_MAX_LENGTH,
  ERROR_PATTERN_MAX_LENGTH,
  ID_MAX_LENGTH,
  LIST_ENTRY_MAX_LENGTH,
  LIST_MAX_ENTRIES,
  SESSION_ID_MAX_LENGTH,
  SEVERITY_MAX_LENGTH,
  SHARED_WITH_MAX_ENTRIES,
  type WriteLimits,
} from './field-limits.ts';
import { checkId } from './validate-id.ts';
import { ViolationList } from './violation-list.ts';
import type { WriteInput } from './write-input.ts';

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function checkOptionalId(out: ViolationList, field: string, value: unknown, maxLength: number): void {
  if (present(value)) checkId(out, field, value, maxLength);
}

function checkEnum(out: ViolationList, field: string, value: unknown, allowed: readonly string[]): void {
  if (!present(value)) return;
  if (typeof value !== 'string' || !allowed.includes(value)) {
    out.add(field, 'INVALID_VALUE', `${field} must be one of: ${allowed.join(', ')}`);
  }
}

/** Checks an optional list; `each` checks one entry. */
function checkList(
  out: ViolationList,
  field: string,
  value: unknown,
  maxEntries: number,
  each: (path: string, entry: unknown) => void,
): void {
  if (!present(value)) return;
  if (!Array.isArray(value)) {
    out.add(field, 'INVALID_VALUE', `${field} must be a list`);
    return;
  }
  const list: readonly unknown[] = value;
  if (list.length > maxEntries) {
    out.add(field, 'TOO_LONG', `${field} must have at most ${maxEntries} entries`);
  }
  for (let i = 0; i < list.length && !out.full; i++) each(`${field}[${i}]`, list[i]);
}

function checkTextList(out: ViolationList, field: string, value: unknown): void {
  const rule: TextRule = { maxLength: LIST_ENTRY_MAX_LENGTH, allowLineBreaks: true };
  checkList(out, field, value, LIST_MAX_ENTRIES, (path, entry) => {
    if (typeof entry !== 'string') out.add(path, 'INVALID_VALUE', `${path} must be a string`);
    else checkText(out, path, entry, rule);
  });
}

function checkSharedWith(out: ViolationList, input: Readonly<Record<string, unknown>>): void {
  const value = input['shared_with'];
  checkList(out, 'shared_with', value, SHARED_WITH_MAX_ENTRIES, (path, entry) =>
    checkId(out, path, entry, ID_MAX_LENGTH),
  );
  if (!Array.isArray(value) || value.length === 0) return;
  // The scope the memory will get: the explicit one, else the type's default (never agent-shared).
  const type = input['memory_type'] ?? 'standard';
  const scope = input['scope'] ?? (isMemoryType(type) ? DEFAULT_SCOPE_BY_TYPE[type] : undefined);
  if (scope !== 'agent-shared') {
    out.add('shared_with', 'INVALID_VALUE', 'shared_with is allowed only with scope agent-shared');
  }
}

function checkSequenceNumber(out: ViolationList, value: unknown): void {
  if (!present(value)) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    out.add('sequence_number', 'INVALID_VALUE', 'sequence_number must be a non-negative integer');
  }
}

/**
 * Stage 1 of the write pipeline: input validation. Returns every violation found (at most
 * MAX_VIOLATIONS, in field order), [] when the write may proceed to stage 2. Never throws, whatever
 * the runtime shape of `input`; a non-object input is validated as an empty request. Linear in the
 * size of the input; no regular expressions.
 *
 * content: required, not blank, at most limits.contentMaxLength Unicode code points (not UTF-16
 * units: an emoji counts as one), no control character other than tab, newline and carriage return,
 * no unpaired surrogate. Type fields (steps, trigger_conditions, error_pattern) follow the same
 * character rule; severity allows no control character at all. Ids: [A-Za-z0-9._:@-]+.
 */
export function validateWrite(input: WriteInput, limits: WriteLimits): FieldViolation[] {
  const raw: unknown = input;
  const r: Readonly<Record<string, unknown>> =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const out = new ViolationList();

  checkText(out, 'content', r['content'], {
    maxLength: limits.contentMaxLength,
    allowLineBreaks: true,
    required: true,
  });
  checkId(out, 'agent_id', r['agent_id'], ID_MAX_LENGTH);
  checkEnum(out, 'memory_type', r['memory_type'], MEMORY_TYPES);
  checkEnum(out, 'scope', r['scope'], SCOPES);
  checkEnum(out, 'trust_level', r['trust_level'], TRUST_LEVELS);
  checkOptionalId(out, 'namespace', r['namespace'], ID_MAX_LENGTH);
  checkSharedWith(out, r);
  checkMetadata(out, r['metadata'], {
    maxDepth: limits.metadataMaxDepth,
    maxKeys: limits.metadataMaxKeys,
    maxStringLength: limits.contentMaxLength,
  });
  checkOptionalId(out, 'session_id', r['session_id'], SESSION_ID_MAX_LENGTH);
  checkSequenceNumber(out, r['sequence_number']);
  checkOptionalId(out, 'entity_id', r['entity_id'], ENTITY_ID_MAX_LENGTH);
  checkTextList(out, 'steps', r['steps']);
  checkTextList(out, 'trigger_conditions', r['trigger_conditions']);
  checkText(out, 'error_pattern', r['error_pattern'], {
    maxLength: ERROR_PATTERN_MAX_LENGTH,
    allowLineBreaks: true,
  });
  checkText(out, 'severity', r['severity'], { maxLength: SEVERITY_MAX_LENGTH, allowLineBreaks: false });
  checkOptionalId(out, 'source_trajectory_id', r['source_trajectory_id'], ID_MAX_LENGTH);
  return out.toArray();
}

/** validateWrite, throwing InvalidArgumentError('request failed validation', violations) on any. */
export function assertValidWrite(input: WriteInput, limits: WriteLimits): void {
  const violations = validateWrite(input, limits);
  if (violations.length > 0) throw new InvalidArgumentError('request failed validation', violations);
}
