import type { MigrationSet } from '@engram/db';
import { votes } from './20261121010000-votes.ts';
import { runs } from './20261121020000-runs.ts';
import { progressSessions } from './20261121020100-progress-sessions.ts';
import { features } from './20261121020200-features.ts';
import { featureOwner } from './20261124010000-feature-owner.ts';
import { oneBallotPerVoter } from './20261124010100-one-ballot-per-voter.ts';

/** The tables ace-feedback owns. */
export const aceMigrations: MigrationSet = {
  owner: 'ace_feedback',
  migrations: [votes, runs, progressSessions, features, featureOwner, oneBallotPerVoter],
};
