import { formatOf, signV2, verifyMemory, type SignedFields } from './memory-signature.ts';

/** What the backfill does with one stored row. */
export type LegacyUpgrade =
  /** Already v2: nothing to do (the backfill is idempotent). */
  | { readonly action: 'keep' }
  /** A v1 hash that verifies, or no hash at all: store this v2 hash. */
  | { readonly action: 'upgrade'; readonly from: 'v1' | 'none'; readonly hash: string }
  /** A v1 hash that does not verify: the row was edited; report it, never re-sign it. */
  | { readonly action: 'tampered' };

/**
 * The backfill's decision for one row: v1 rows are upgraded only when their v1 hash verifies;
 * unsigned rows are signed as they are (nothing can prove they were not edited before); v2 rows are
 * left alone.
 */
export function planLegacyUpgrade(
  key: string,
  hash: string | null | undefined,
  fields: SignedFields,
): LegacyUpgrade {
  const format = formatOf(hash);
  if (format === 'v2') return { action: 'keep' };
  if (format === 'v1' && verifyMemory(key, hash, fields) !== 'valid') return { action: 'tampered' };
  return { action: 'upgrade', from: format, hash: signV2(key, fields) };
}
