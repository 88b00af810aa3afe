/** Machine-readable reasons of stage 1 field violations (FieldViolation.reason). */
export const VIOLATION_REASONS = [
  'REQUIRED',
  'TOO_LONG',
  'CONTROL_CHARACTER',
  'INVALID_CHARACTERS',
  'INVALID_VALUE',
  'TOO_DEEP',
  'TOO_MANY_KEYS',
] as const;

export type ViolationReason = (typeof VIOLATION_REASONS)[number];
