import type { FieldViolation } from '@engram/errors';
import { DEFAULT_WRITE_LIMITS, validateWrite, type WriteInput } from '../../src/index.ts';

export const limits = DEFAULT_WRITE_LIMITS;

/** A minimal valid write plus the given fields. */
export function write(fields: Record<string, unknown> = {}): WriteInput {
  return { content: 'the deploy needs the payments flag', agent_id: 'agent-1', ...fields };
}

export function violationsOf(fields: Record<string, unknown>): FieldViolation[] {
  return validateWrite(write(fields), limits);
}

/** "field:REASON" for each violation, for compact assertions. */
export function codes(violations: readonly FieldViolation[]): string[] {
  return violations.map((v) => `${v.field}:${v.reason ?? ''}`);
}
