export { RETRIEVAL_SERVICE_NAMES, retrievalServices } from './server.ts';
export { efSearch, HNSW_EF_SEARCH_MIN, nearestQuery } from './storage/search-repository.ts';
