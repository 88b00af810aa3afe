import { parseLimit, type FieldViolation } from '@engram/errors';

export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 200;

/** limit: default 50, an integer from 1 to 200. */
export function pageLimit(limit: number | undefined, violations: FieldViolation[]): number {
  return parseLimit(
    'limit',
    limit,
    { min: 1, max: PAGE_LIMIT_MAX, fallback: PAGE_LIMIT_DEFAULT },
    violations,
  );
}
