import type { Database } from '@engram/db';
import { playbookCandidates } from '@engram/memories';
import type { PlaybookQuery, PlaybookRepository } from '../domain/playbook.ts';
import type { PlaybookCandidate } from '../domain/playbook-ranking.ts';

/** Playbook candidates through @engram/memories (playbookCandidates: the statement and its signals). */
export class KnexPlaybookRepository implements PlaybookRepository {
  constructor(private readonly db: Database) {}

  candidates(q: PlaybookQuery, limit: number, offset: number): Promise<PlaybookCandidate[]> {
    return playbookCandidates(this.db, q, limit, offset);
  }
}
