import { runService } from '@engram/platform';
import { composeRetrievalRanking } from './compose.ts';

runService('retrieval-ranking', composeRetrievalRanking);
