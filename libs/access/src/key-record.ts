/**
 * One row of api_keys as Engram reads it (every column but key_hash, which is only ever compared in
 * a WHERE clause). The one declaration of that row: the authenticator's lookup (KnexKeyLookup) and
 * memory-store's key repository both select API_KEY_COLUMNS into it and map it with keyRecordOf.
 */
export interface ApiKeyRow {
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

/** The columns of ApiKeyRow, in the order of the table. */
export const API_KEY_COLUMNS: readonly (keyof ApiKeyRow)[] = [
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

/** An API key (without its hash): what KeyLookup finds and what memory-store's key management returns. */
export interface KeyRecord {
  readonly key_id: string;
  readonly project_id: string;
  readonly name: string;
  readonly prefix: string;
  readonly trust_level: string;
  readonly bound_agent_id: string | null;
  readonly agent_ids: readonly string[];
  readonly any_agent: boolean;
  readonly expires_at: Date | null;
  readonly revoked_at: Date | null;
  readonly instance_admin: boolean;
  readonly created_at: Date;
}

const date = (v: Date | string | null) => (v === null ? null : new Date(v));

/** The record of a row: timestamps as Date (PGlite may answer strings), agent_ids never null. */
export function keyRecordOf(r: ApiKeyRow): KeyRecord {
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
