import { verifyMemory, type IntegrityStatus, type SignedFields } from './memory-signature.ts';

export type IntegrityReadMode = 'drop' | 'flag' | 'off';

export interface ReadGuardOptions {
  readonly key: string;
  readonly mode: IntegrityReadMode;
  readonly requireSigned: boolean;
}

export interface GuardedRow extends SignedFields {
  readonly integrity_hash: string | null;
}

export interface Screened<T> {
  /** Rows to return; in flag mode each carries its integrity_status. */
  readonly kept: (T & { integrity_status?: IntegrityStatus })[];
  /** Rows whose signature failed (or unsigned under requireSigned): record INTEGRITY_FAILED for each. */
  readonly failed: { row: T; status: IntegrityStatus }[];
}

/**
 * Verify-on-read (docs/architecture.md, The read path): recompute every row's HMAC. drop excludes failing rows,
 * flag keeps them marked invalid, off returns everything unchecked.
 */
export function screenRows<T extends GuardedRow>(rows: readonly T[], opts: ReadGuardOptions): Screened<T> {
  if (opts.mode === 'off') return { kept: [...rows], failed: [] };
  const kept: (T & { integrity_status?: IntegrityStatus })[] = [];
  const failed: { row: T; status: IntegrityStatus }[] = [];
  for (const row of rows) {
    const status = verifyMemory(opts.key, row.integrity_hash, row);
    const failing = status === 'invalid' || (status === 'unsigned' && opts.requireSigned);
    if (failing) failed.push({ row, status });
    if (opts.mode === 'flag') kept.push({ ...row, integrity_status: failing ? 'invalid' : status });
    else if (!failing) kept.push(row);
  }
  return { kept, failed };
}
