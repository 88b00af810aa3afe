import type { EngramConfig } from '@engram/config';
import { securityConfig } from './domain/security-config.ts';

/**
 * The settings security-admin reads: the view GET /security/config publishes (content policy, limits,
 * integrity and ranking settings, policy version; never a secret), fixed for the process's life.
 */
export interface SecurityAdminConfig {
  readonly published: ReturnType<typeof securityConfig>;
}

export function securityAdminConfig(config: EngramConfig): SecurityAdminConfig {
  return { published: securityConfig(config) };
}
