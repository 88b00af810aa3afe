/** Detection categories of stages 2-4 (docs/architecture.md, The write path). */
export const DETECTION_CATEGORIES = ['pii', 'secrets', 'injection'] as const;
export type DetectionCategory = (typeof DETECTION_CATEGORIES)[number];

/** Detection types by category. pii = {ssn, email}; secrets = {payment_card, api_key, password}. */
export const DETECTION_TYPES = {
  pii: ['ssn', 'email'],
  secrets: ['payment_card', 'api_key', 'password'],
  injection: [
    'system_override',
    'role_manipulation',
    'data_exfiltration',
    'indirect_instruction',
    'fake_turn',
    'delimiter_attack',
    'learned_model',
    'llm_classifier',
  ],
} as const satisfies Record<DetectionCategory, readonly string[]>;

/**
 * One finding of a scanner. `field` says where: "content", "error_pattern" or "metadata.<path>".
 * start/end are UTF-16 offsets into that field's text when the finding is a span (absent for a
 * finding about the whole field, such as a metadata value under a password-like key... which is
 * a span over the whole value, or a stage-4 verdict). The matched text itself is never kept.
 */
export interface Detection {
  readonly category: DetectionCategory;
  readonly type: string;
  readonly stage: 2 | 3 | 4;
  readonly field: string;
  readonly start?: number | undefined;
  readonly end?: number | undefined;
}

/** A span found in one text, before it is attributed to a field. */
export interface Finding {
  readonly category: DetectionCategory;
  readonly type: string;
  readonly start: number;
  readonly end: number;
  /** Set by a strong injection rule: one that applies to an internal agent's own instructions too. */
  readonly strong?: boolean;
  /** Set by a rule of the data profile (stage3/data-rules.ts). */
  readonly data?: boolean;
  /**
   * Set by a data rule whose match alone is weak evidence (Rule.corroborate): the finding stands only
   * where the learned signal does not find the text ordinary (scanInContext).
   */
  readonly corroborate?: boolean;
}
