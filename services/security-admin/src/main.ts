import { runService } from '@engram/platform';
import { composeSecurityAdmin } from './compose.ts';

runService('security-admin', composeSecurityAdmin);
