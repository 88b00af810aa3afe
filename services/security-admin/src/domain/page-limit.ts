import type { FieldViolation } from '@engram/errors';

export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 200;

/** limit: default 50, between 1 and 200. */
export function pageLimit(limit: number | undefined, violations: FieldViolation[]): number {
  if (limit === undefined) return PAGE_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_LIMIT_MAX) {
    violations.push({
      field: 'limit',
      description: `must be between 1 and ${PAGE_LIMIT_MAX}`,
      reason: 'INVALID_VALUE',
    });
  }
  return limit;
}
