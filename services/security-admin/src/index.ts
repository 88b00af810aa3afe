export { composeSecurityAdmin, SECURITY_ADMIN_SERVICE_NAMES } from './compose.ts';
export { securityAdminConfig } from './config.ts';
export type { SecurityAdminConfig } from './config.ts';
