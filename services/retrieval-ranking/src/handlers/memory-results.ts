import { toProtoMemory } from '@engram/memories';
import type { Memory } from '@engram/proto/engram/memory/v1/memory';
import type { RankedMemory } from '../domain/vector-search.ts';

/** A ranked memory on the wire: score (cosine) and, with trust-weighted ranking, relevance_score. */
export function toRankedProto(m: RankedMemory & { tokens?: number }): Memory {
  return {
    ...toProtoMemory(m),
    score: m.score,
    relevance_score: m.relevance_score,
    tokens: m.tokens,
  };
}
