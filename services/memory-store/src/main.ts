import { runService } from '@engram/platform';
import { composeMemoryStore } from './compose.ts';

runService('memory-store', composeMemoryStore);
