import { API_KEY_COLUMNS, keyRecordOf, type ApiKeyRow } from '@engram/access';
import type { Database } from '@engram/db';
import { appendEvent, type NewAuditEvent } from '@engram/events';
import type { ApiKeyRecord, KeyRepository, NewKey, ProjectRecord } from '../domain/keys.ts';

/** Projects and keys; each change commits with its audit event, then wakes the outbox relay. */
export class KnexKeyRepository implements KeyRepository {
  constructor(
    private readonly db: Database,
    private readonly onCommit: () => void = () => {},
  ) {}

  async createProject(
    projectId: string,
    name: string,
    event: NewAuditEvent,
  ): Promise<ProjectRecord | undefined> {
    const row = await this.db.knex.transaction(async (trx) => {
      const rows: { project_id: string; name: string; created_at: Date }[] = await trx('projects')
        .insert({ project_id: projectId, name })
        .onConflict('project_id')
        .ignore()
        .returning(['project_id', 'name', 'created_at']);
      if (rows[0]) await appendEvent(trx, event);
      return rows[0];
    });
    if (!row) return undefined;
    this.onCommit();
    return { project_id: row.project_id, name: row.name, created_at: new Date(row.created_at) };
  }

  async projectExists(projectId: string): Promise<boolean> {
    return (await this.db.knex('projects').where({ project_id: projectId }).first()) !== undefined;
  }

  async countKeys(): Promise<number> {
    const row = (await this.db.knex('api_keys').count<{ count: string | number }[]>('* as count'))[0];
    return Number(row?.count ?? 0);
  }

  async insertKey(k: NewKey, event: NewAuditEvent): Promise<ApiKeyRecord> {
    const rows: ApiKeyRow[] = await this.db.knex.transaction(async (trx) => {
      const inserted: ApiKeyRow[] = await trx('api_keys')
        .insert({
          key_id: k.key_id,
          project_id: k.project_id,
          name: k.name,
          key_hash: k.key_hash,
          prefix: k.prefix,
          trust_level: k.trust_level,
          bound_agent_id: k.bound_agent_id,
          agent_ids: [...k.agent_ids],
          any_agent: k.any_agent,
          expires_at: k.expires_at,
          instance_admin: k.instance_admin,
        })
        .returning(API_KEY_COLUMNS);
      await appendEvent(trx, event);
      return inserted;
    });
    this.onCommit();
    return keyRecordOf(rows[0]!);
  }

  async listKeys(projectId: string, after: string | undefined, limit: number): Promise<ApiKeyRecord[]> {
    const qb = this.db
      .knex('api_keys')
      .select(API_KEY_COLUMNS)
      .where({ project_id: projectId })
      .orderBy('key_id')
      .limit(limit);
    if (after) void qb.where('key_id', '>', after);
    return ((await qb) as ApiKeyRow[]).map(keyRecordOf);
  }

  async findKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const row = (await this.db.knex('api_keys').select(API_KEY_COLUMNS).where({ key_id: keyId }).first()) as
      ApiKeyRow | undefined;
    return row ? keyRecordOf(row) : undefined;
  }

  async revokeKey(keyId: string, event: NewAuditEvent): Promise<ApiKeyRecord | undefined> {
    const rows: ApiKeyRow[] = await this.db.knex.transaction(async (trx) => {
      const revoked: ApiKeyRow[] = await trx('api_keys')
        .update({ revoked_at: trx.fn.now() })
        .where({ key_id: keyId })
        .whereNull('revoked_at')
        .returning(API_KEY_COLUMNS);
      if (revoked[0]) await appendEvent(trx, event);
      return revoked;
    });
    if (!rows[0]) return this.findKey(keyId);
    this.onCommit();
    return keyRecordOf(rows[0]);
  }

  async countAgentlessKeys(): Promise<number> {
    const row = (
      await this.db
        .knex('api_keys')
        .count<{ count: string | number }[]>('* as count')
        .whereIn('trust_level', ['untrusted', 'internal'])
        .whereNull('bound_agent_id')
        .whereNull('revoked_at')
        .where((q) => void q.whereNull('expires_at').orWhere('expires_at', '>', this.db.knex.fn.now()))
        .where('any_agent', false)
        .whereRaw('cardinality(agent_ids) = 0')
    )[0];
    return Number(row?.count ?? 0);
  }
}
