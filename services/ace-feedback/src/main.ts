import { runService } from '@engram/platform';
import { composeAceFeedback } from './compose.ts';

runService('ace-feedback', composeAceFeedback);
