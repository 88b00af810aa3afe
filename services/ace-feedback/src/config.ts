import type { EngramConfig } from '@engram/config';
import { screeningSettingsOf, type ScreeningSettings } from '@engram/security-rules';

/**
 * The settings ace-feedback reads: how the free text of sessions, features and run evaluations is
 * screened (CONTENT_POLICY_*, stage 4), the same as a memory write. Everything else it needs (the
 * database, integrity, keys) comes from the process it runs in.
 */
export interface AceConfig {
  readonly screening: ScreeningSettings;
}

export function aceConfig(config: EngramConfig): AceConfig {
  return { screening: screeningSettingsOf(config) };
}
