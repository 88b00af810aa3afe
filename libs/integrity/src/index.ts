export { canonicalJson } from './canonical-json.ts';
export { planLegacyUpgrade } from './legacy-upgrade.ts';
export type { LegacyUpgrade } from './legacy-upgrade.ts';
export {
  formatOf,
  signProvenance,
  signV1,
  signV2,
  v2Message,
  verifyMemory,
  verifyProvenance,
} from './memory-signature.ts';
export type { IntegrityFormat, IntegrityStatus, SignedFields } from './memory-signature.ts';
export { screenRows } from './read-guard.ts';
export type { GuardedRow, IntegrityReadMode, ReadGuardOptions, Screened } from './read-guard.ts';
