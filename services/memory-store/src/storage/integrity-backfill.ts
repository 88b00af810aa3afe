import type { Knex } from 'knex';
import { planLegacyUpgrade } from '@engram/integrity';

export interface BackfillOptions {
  readonly integrityKey: string;
  readonly projectId?: string | undefined;
  readonly dryRun: boolean;
  readonly batchSize: number;
  /** Resume after this memory id (rows are visited in id order). */
  readonly afterId?: string | undefined;
  /** Called after every batch. */
  readonly onProgress?: (p: BackfillProgress) => void;
}

export interface BackfillProgress {
  /** Rows without a v2 signature when the run started (the amount of work). */
  readonly total: number;
  readonly scanned: number;
  readonly upgradedV1: number;
  readonly signedUnsigned: number;
  readonly tampered: number;
  /** The last id visited: pass it as afterId to resume. */
  readonly lastId: string | undefined;
}

export interface BackfillReport extends BackfillProgress {
  /** Ids of legacy rows whose v1 hash does not verify (at most 1,000 listed). */
  readonly tamperedIds: string[];
  /** Rows changed under the backfill (by a relabel) between read and update, left as they are. */
  readonly skippedConcurrent: number;
}

interface LegacyRow {
  id: string;
  project_id: string;
  agent_id: string;
  scope: string;
  trust_level: string;
  content: string;
  integrity_hash: string | null;
}

const TAMPERED_LIST_MAX = 1000;

function legacyRows(knex: Knex, projectId: string | undefined) {
  const qb = knex('memories').where((w) => {
    void w.whereNull('integrity_hash').orWhereNot('integrity_hash', 'like', 'v2:%');
  });
  if (projectId !== undefined) void qb.where('project_id', projectId);
  return qb;
}

/**
 * Upgrades legacy signatures to v2, in batches by id (keyset), each batch in its own transaction:
 * a v1 row only when its v1 hash verifies, an unsigned row as it stands; a v1 row that does not
 * verify is reported and never re-signed. Idempotent (v2 rows are never selected) and resumable
 * (afterId). An update applies only if the row still holds the hash that was read.
 */
export async function backfillIntegrity(knex: Knex, opts: BackfillOptions): Promise<BackfillReport> {
  const countRow = (await legacyRows(knex, opts.projectId).count<{ n: string | number }[]>('* as n'))[0];
  const total = Number(countRow?.n ?? 0);
  const state = {
    total,
    scanned: 0,
    upgradedV1: 0,
    signedUnsigned: 0,
    tampered: 0,
    lastId: opts.afterId,
    tamperedIds: [] as string[],
    skippedConcurrent: 0,
  };
  for (;;) {
    const qb = legacyRows(knex, opts.projectId)
      .select('id', 'project_id', 'agent_id', 'scope', 'trust_level', 'content', 'integrity_hash')
      .orderBy('id')
      .limit(opts.batchSize);
    if (state.lastId !== undefined) void qb.where('id', '>', state.lastId);
    const rows = (await qb) as LegacyRow[];
    if (rows.length === 0) break;
    const updates: { id: string; old: string | null; hash: string; from: 'v1' | 'none' }[] = [];
    for (const row of rows) {
      const plan = planLegacyUpgrade(opts.integrityKey, row.integrity_hash, row);
      if (plan.action === 'tampered') {
        state.tampered++;
        if (state.tamperedIds.length < TAMPERED_LIST_MAX) state.tamperedIds.push(row.id);
      } else if (plan.action === 'upgrade') {
        updates.push({ id: row.id, old: row.integrity_hash, hash: plan.hash, from: plan.from });
      }
    }
    if (!opts.dryRun && updates.length > 0) {
      const applied = await applyBatch(knex, updates);
      for (const u of updates) {
        if (!applied.has(u.id)) state.skippedConcurrent++;
        else if (u.from === 'v1') state.upgradedV1++;
        else state.signedUnsigned++;
      }
    } else {
      for (const u of updates) {
        if (u.from === 'v1') state.upgradedV1++;
        else state.signedUnsigned++;
      }
    }
    state.scanned += rows.length;
    state.lastId = rows[rows.length - 1]!.id;
    opts.onProgress?.({ ...state });
    if (rows.length < opts.batchSize) break;
  }
  return state;
}

/** One UPDATE ... FROM (VALUES ...) per batch; returns the ids it changed. */
async function applyBatch(
  knex: Knex,
  updates: { id: string; old: string | null; hash: string }[],
): Promise<Set<string>> {
  const values = updates.map(() => '(?::uuid, ?::text, ?::text)').join(', ');
  const bindings = updates.flatMap((u) => [u.id, u.old, u.hash]);
  const res: { rows: { id: string }[] } = await knex.transaction((trx) =>
    trx.raw(
      `update memories m set integrity_hash = v.hash
         from (values ${values}) as v(id, old, hash)
        where m.id = v.id and m.integrity_hash is not distinct from v.old
        returning m.id`,
      bindings,
    ),
  );
  return new Set(res.rows.map((r) => r.id));
}
