export { SECURITY_ADMIN_SERVICE_NAMES, securityAdminServices } from './server.ts';
