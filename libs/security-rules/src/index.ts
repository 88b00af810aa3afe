// The vocabulary (memory types, scopes, trust levels) is @engram/memory-model's; the default scope
// of a type is a screening rule and lives here.
export { DEFAULT_SCOPE_BY_TYPE } from './default-scope.ts';

// Stage 1: input validation.
export {
  DEFAULT_WRITE_LIMITS,
  ENTITY_ID_MAX_LENGTH,
  ERROR_PATTERN_MAX_LENGTH,
  ID_MAX_LENGTH,
  LIST_ENTRY_MAX_LENGTH,
  LIST_MAX_ENTRIES,
  MAX_VIOLATIONS,
  METADATA_KEY_MAX_LENGTH,
  SESSION_ID_MAX_LENGTH,
  SEVERITY_MAX_LENGTH,
  SHARED_WITH_MAX_ENTRIES,
} from './stage1/field-limits.ts';
export type { WriteLimits } from './stage1/field-limits.ts';
export { validateId } from './stage1/validate-id.ts';
export { assertValidWrite, validateWrite } from './stage1/validate-write.ts';
export { VIOLATION_REASONS } from './stage1/violation-reason.ts';
export type { ViolationReason } from './stage1/violation-reason.ts';
export type { WriteInput } from './stage1/write-input.ts';

// The policy version recorded in provenance and shown by GET /security/config.
export { computePolicyVersion, policySettings, SCANNER_RULES_VERSION } from './policy-version.ts';

// Stages 2-4 and the content policy.
export { DETECTION_CATEGORIES, DETECTION_TYPES } from './detection.ts';
export type { Detection, DetectionCategory, Finding } from './detection.ts';
export { RuleScanner } from './rule-scanner.ts';
export type { Rule } from './rule-scanner.ts';
export { luhnValid } from './stage2/luhn.ts';
export { scanSensitive } from './stage2/scan-sensitive.ts';
export { SENSITIVE_RULES } from './stage2/sensitive-rules.ts';
export { scanInjection } from './stage3/scan-injection.ts';
export { INJECTION_RULES } from './stage3/injection-rules.ts';
export { ChatCompletionsClassifier } from './stage4/chat-completions-classifier.ts';
export {
  classifierEscalationOf,
  injectionClassifierOf,
  screeningSettingsOf,
  stage4Of,
} from './stage4/classifier-of-config.ts';
export type { ClassifierSettings, ScreeningSettings, Stage4 } from './stage4/classifier-of-config.ts';
export type { ChatClassifierOptions } from './stage4/chat-completions-classifier.ts';
export { ClassifierError, CLASSIFIER_REJECT_CONFIDENCE } from './stage4/injection-classifier.ts';
export type { ClassifierOutcome, InjectionClassifier } from './stage4/injection-classifier.ts';
export { parseClassifierReply } from './stage4/parse-classifier-reply.ts';
export { isPolicyAction, moreSevere, POLICY_ACTIONS } from './policy/policy-action.ts';
export type { PolicyAction } from './policy/policy-action.ts';
export { actionFor, contentPolicyOf, DEFAULT_CONTENT_POLICY } from './policy/content-policy.ts';
export type { ContentPolicy, ContentPolicySettings } from './policy/content-policy.ts';
export { redact, redactionToken } from './policy/redact.ts';
export type { RedactionSpan } from './policy/redact.ts';
export { applyRedaction } from './policy/apply-redaction.ts';
export { forEachString, scanWrite, scanWriteInContext } from './policy/scan-fields.ts';
export type { ScannableWrite, WriteScan } from './policy/scan-fields.ts';
export { scanInContext, scanText } from './policy/scan-text.ts';
export type { ContextScan, StageSwitches } from './policy/scan-text.ts';
export { SCREENING_PROFILES, screeningProfile } from './policy/screening-profile.ts';
export type { ScreeningProfile, WriteContext } from './policy/screening-profile.ts';
export { injectionModel, scoreWithModel } from './model/injection-model.ts';
export type { LoadedModel } from './model/injection-model.ts';
export { mulberry32 } from './seeded-random.ts';
export type { InjectionModelData, ModelScore } from './model/injection-model.ts';
export { LLM_INJECTION_FLAG, screenContent, uncertainData } from './policy/screen-content.ts';
export type {
  ClassifierEscalation,
  DecidedDetection,
  ScreenContext,
  ScreenOptions,
  ScreenResult,
} from './policy/screen-content.ts';
