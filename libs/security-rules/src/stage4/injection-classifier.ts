/** Stage 4: a model that says how likely a text tries to manipulate an AI system (0..1). */
export interface InjectionClassifier {
  /** Resolves with the confidence that the text is an injection; rejects on any failure. */
  classify(text: string, signal?: AbortSignal): Promise<number>;
}

/** Thresholds of the specification: >= 0.8 rejects, >= threshold (default 0.7) flags. */
export const CLASSIFIER_REJECT_CONFIDENCE = 0.8;

/** Why stage 4 did or did not change the verdict; recorded in the provenance verdict. */
export type ClassifierOutcome =
  | { readonly ran: false; readonly reason: 'disabled' | 'not_required' | 'already_rejected' }
  | {
      readonly ran: true;
      readonly status: 'ok';
      readonly confidence: number;
      readonly effect: 'reject' | 'flag' | 'none';
    }
  | { readonly ran: true; readonly status: 'error'; readonly error: string };

/** The error classes a classifier failure is reported as (never the message: it may hold text). */
export class ClassifierError extends Error {
  override readonly name = 'ClassifierError';
  constructor(
    readonly kind: 'timeout' | 'http' | 'network' | 'malformed' | 'aborted',
    message: string,
  ) {
    super(message);
  }
}
