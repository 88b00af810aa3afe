/** A vote on a memory. */
export type VoteValue = 'helpful' | 'harmful';
