import type { Database } from '@engram/db';
import { appendEvent, type NewAuditEvent } from '@engram/events';
import type { ApiKeyRecord, KeyRepository, NewKey, ProjectRecord } from '../domain/keys.ts';

interface KeyRow {
  key_id: string;
  project_id: string;
  name: string;
  prefix: string;
  trust_level: string;
  bound_agent_id: string | null;
  agent_ids: string[] | null;
  any_agent: boolean;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
  instance_admin: boolean;
  created_at: Date | string;
}

const KEY_COLUMNS = [
  'key_id',
  'project_id',
  'name',
  'prefix',
  'trust_level',
  'bound_agent_id',
  'agent_ids',
  'any_agent',
  'expires_at',
  'revoked_at',
  'instance_admin',
  'created_at',
];

const date = (v: Date | string | null) => (v === null ? null : new Date(v));

function keyFromRow(r: KeyRow): ApiKeyRecord {
  return {
    key_id: r.key_id,
    project_id: r.project_id,
    name: r.name,
    prefix: r.prefix,
    trust_level: r.trust_level,
    bound_agent_id: r.bound_agent_id,
    agent_ids: r.agent_ids ?? [],
    any_agent: r.any_agent,
    expires_at: date(r.expires_at),
    revoked_at: date(r.revoked_at),
    instance_admin: r.instance_admin,
    created_at: new Date(r.created_at),
  };
}

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
    const rows: KeyRow[] = await this.db.knex.transaction(async (trx) => {
      const inserted: KeyRow[] = await trx('api_keys')
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
        .returning(KEY_COLUMNS);
      await appendEvent(trx, event);
      return inserted;
    });
    this.onCommit();
    return keyFromRow(rows[0]!);
  }

  async listKeys(projectId: string, after: string | undefined, limit: number): Promise<ApiKeyRecord[]> {
    const qb = this.db
      .knex('api_keys')
      .select(KEY_COLUMNS)
      .where({ project_id: projectId })
      .orderBy('key_id')
      .limit(limit);
    if (after) void qb.where('key_id', '>', after);
    return ((await qb) as KeyRow[]).map(keyFromRow);
  }

  async findKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const row = (await this.db.knex('api_keys').select(KEY_COLUMNS).where({ key_id: keyId }).first()) as
      KeyRow | undefined;
    return row ? keyFromRow(row) : undefined;
  }

  async revokeKey(keyId: string, event: NewAuditEvent): Promise<ApiKeyRecord | undefined> {
    const rows: KeyRow[] = await this.db.knex.transaction(async (trx) => {
      const revoked: KeyRow[] = await trx('api_keys')
        .update({ revoked_at: trx.fn.now() })
        .where({ key_id: keyId })
        .whereNull('revoked_at')
        .returning(KEY_COLUMNS);
      if (revoked[0]) await appendEvent(trx, event);
      return revoked;
    });
    if (!rows[0]) return this.findKey(keyId);
    this.onCommit();
    return keyFromRow(rows[0]);
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
