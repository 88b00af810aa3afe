/**
 * The shipped model as the training script writes it (src/model/injection-model.data.ts): a linear
 * model over hashed features, its weights quantized to int16 and base64-encoded, and the thresholds
 * chosen on validation data per screening profile.
 */
export interface InjectionModelData {
  readonly format: 1;
  /** sha256 (hex, first 16) of the weights and settings: recorded in the scanner rules version. */
  readonly id: string;
  readonly bits: number;
  /** A weight is int16 * scale. */
  readonly scale: number;
  readonly bias: number;
  /** Little-endian int16 per bucket, base64. */
  readonly weights: string;
  /** Segment probability at or above which the model alone is a finding, per profile (> 1: never). */
  readonly thresholds: Readonly<Record<'data' | 'memory' | 'instructions', number>>;
  /** Untrusted content scored in [low, high) is uncertain: stage 4 may be asked (escalation 'uncertain'). */
  readonly band: { readonly low: number; readonly high: number };
  /**
   * Content screened as data: a finding of a rule marked `corroborate` is dropped when the model read
   * the text and scored it under this floor (0: never dropped).
   */
  readonly corroboration: number;
}
