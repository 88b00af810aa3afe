import { isPrivileged, type Principal } from '@engram/auth';
import { PermissionDeniedError } from '@engram/errors';

/** Every /security/* route: privileged or system principals only (403 ADMIN_REQUIRED otherwise). */
export function requireSecurityAdmin(p: Principal): void {
  if (!isPrivileged(p))
    throw new PermissionDeniedError('a privileged or system API key is required', 'ADMIN_REQUIRED');
}
