import { randomUUID } from 'node:crypto';
import type { KeyRecord } from '@engram/access';
import { displayPrefix, generateApiKey, hashApiKey, isPrincipalTrust, type Principal } from '@engram/auth';
import {
  ConflictError,
  decodeCursor,
  encodeCursor,
  InvalidArgumentError,
  isUuid,
  NotFoundError,
  parseTimestamp,
  parseUuid,
  PermissionDeniedError,
  refuseCursor,
  type FieldViolation,
} from '@engram/errors';
import type { NewAuditEvent } from '@engram/events';
import { ID_MAX_LENGTH, LIST_MAX_ENTRIES, validateId } from '@engram/security-rules';

export interface ProjectRecord {
  readonly project_id: string;
  readonly name: string;
  readonly created_at: Date;
}

/** An API key as key management returns it: the record the authenticator's lookup reads too. */
export type ApiKeyRecord = KeyRecord;

export interface NewKey {
  readonly key_id: string;
  readonly project_id: string;
  readonly name: string;
  readonly key_hash: string;
  readonly prefix: string;
  readonly trust_level: string;
  readonly bound_agent_id: string | null;
  readonly agent_ids: readonly string[];
  readonly any_agent: boolean;
  readonly expires_at: Date | null;
  readonly instance_admin: boolean;
}

/**
 * Projects and keys. Every change commits with its audit event (`event`), which names the key that
 * made it (docs/decisions.md).
 */
export interface KeyRepository {
  /** undefined (and no event) when the project already exists. */
  createProject(projectId: string, name: string, event: NewAuditEvent): Promise<ProjectRecord | undefined>;
  projectExists(projectId: string): Promise<boolean>;
  countKeys(): Promise<number>;
  insertKey(k: NewKey, event: NewAuditEvent): Promise<ApiKeyRecord>;
  listKeys(projectId: string, after: string | undefined, limit: number): Promise<ApiKeyRecord[]>;
  findKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** Revokes the key and records `event`; an already revoked key is returned as it is, with no event. */
  revokeKey(keyId: string, event: NewAuditEvent): Promise<ApiKeyRecord | undefined>;
  /** Live unbound untrusted and internal keys that list no agent and have no any_agent (pre-migration rows). */
  countAgentlessKeys(): Promise<number>;
}

export interface CreateKeyInput {
  readonly project_id: string;
  readonly name: string;
  readonly trust_level: string;
  readonly bound_agent_id?: string | undefined;
  readonly agent_ids?: readonly string[] | undefined;
  readonly any_agent?: boolean | undefined;
  readonly expires_at?: string | undefined;
}

function requireSystem(p: Principal): void {
  if (p.trust !== 'system') throw new PermissionDeniedError('a system API key is required', 'ADMIN_REQUIRED');
}

/** Only the instance administrator acts across projects; other system keys administer their own. */
function requireProjectAdmin(p: Principal, projectId: string): void {
  requireSystem(p);
  if (!p.instanceAdmin && p.projectId !== projectId) {
    throw new PermissionDeniedError('a system key administers only its own project', 'ADMIN_REQUIRED');
  }
}

function check(violations: FieldViolation[]): void {
  if (violations.length > 0) throw new InvalidArgumentError('request failed validation', violations);
}

/**
 * A display name (of a key or a project): stored as text, so no NUL, and no other control character
 * either (it is printed by `engram keys list`).
 */
function checkName(name: string, violations: FieldViolation[]): void {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name))
    violations.push({
      field: 'name',
      description: 'must not contain control characters',
      reason: 'CONTROL_CHARACTER',
    });
}

/**
 * Whom the key acts for (docs/decisions.md, "what an unbound key may do"): an untrusted key is bound;
 * an internal key is bound, lists its agents, or says any_agent (exactly one of them); a privileged
 * or system key acts for any agent unless bound, so a list or any_agent would mean nothing there and
 * is refused rather than silently ignored. Returns the distinct listed agents.
 */
function checkAgents(input: CreateKeyInput, violations: FieldViolation[]): string[] {
  const bound = input.bound_agent_id !== undefined;
  const listed = [...new Set(input.agent_ids ?? [])];
  const anyAgent = input.any_agent === true;
  if (listed.length > LIST_MAX_ENTRIES)
    violations.push({
      field: 'agent_ids',
      description: `at most ${LIST_MAX_ENTRIES} agents`,
      reason: 'TOO_MANY',
    });
  else listed.forEach((a, i) => violations.push(...validateId(`agent_ids[${i}]`, a, ID_MAX_LENGTH)));
  const choices = [bound, listed.length > 0, anyAgent].filter(Boolean).length;
  switch (input.trust_level) {
    case 'untrusted':
      if (!bound)
        violations.push({
          field: 'bound_agent_id',
          description: 'an untrusted key must be bound to one agent',
          reason: 'REQUIRED',
        });
      else if (choices > 1)
        violations.push({
          field: listed.length > 0 ? 'agent_ids' : 'any_agent',
          description: 'an untrusted key acts only as its bound agent',
          reason: 'INVALID_VALUE',
        });
      break;
    case 'internal':
      if (choices === 0)
        violations.push({
          field: 'bound_agent_id',
          description:
            'an internal key must be bound (bound_agent_id), list its agents (agent_ids) or say any_agent',
          reason: 'REQUIRED',
        });
      else if (choices > 1)
        violations.push({
          field: listed.length > 0 ? 'agent_ids' : 'any_agent',
          description: 'give only one of bound_agent_id, agent_ids and any_agent',
          reason: 'INVALID_VALUE',
        });
      break;
    case 'privileged':
    case 'system':
      if (listed.length > 0 || anyAgent)
        violations.push({
          field: listed.length > 0 ? 'agent_ids' : 'any_agent',
          description:
            'privileged and system keys act for any agent unless bound; agent_ids and any_agent are for internal keys',
          reason: 'INVALID_VALUE',
        });
      break;
  }
  return listed;
}

/** The key id after which a page of GET /admin/keys starts (the cursor is its base64url). */
function keyCursor(cursor: string, violations: FieldViolation[]): string | undefined {
  const text = decodeCursor('cursor', cursor, violations);
  if (text === undefined || isUuid(text)) return text?.toLowerCase();
  refuseCursor('cursor', violations);
  return undefined;
}

/**
 * The startup warning while unbound untrusted or internal keys from before agent_ids/any_agent exist:
 * they act for no agent (every request naming one is 403 AGENT_MISMATCH). undefined when there are none.
 */
export function agentlessKeysWarning(count: number): string | undefined {
  if (count === 0) return undefined;
  return (
    `${count} unbound untrusted or internal API keys act for no agent since agent_ids/any_agent were introduced; ` +
    'a request naming an agent with one of them is refused (403 AGENT_MISMATCH). Replace each with ' +
    '`engram keys create --agent <agent>` (bound; untrusted keys must be), `--acts-for <agent>` (repeatable) ' +
    'or `--any-agent`, then revoke it (README, "Who may do what")'
  );
}

/** Key and project administration (docs/architecture.md, Authorization): the raw key is returned once. */
export class KeyService {
  constructor(private readonly repo: KeyRepository) {}

  async createProject(p: Principal, projectId: string, name: string): Promise<ProjectRecord> {
    if (!p.instanceAdmin)
      throw new PermissionDeniedError('only the instance administrator creates projects', 'ADMIN_REQUIRED');
    const violations = validateId('project_id', projectId, ID_MAX_LENGTH);
    checkName(name, violations);
    check(violations);
    const created = await this.repo.createProject(
      projectId,
      name.trim() === '' ? projectId : name.slice(0, 200),
      { eventType: 'PROJECT_CREATED', projectId, apiKeyId: p.keyId, details: { project_id: projectId } },
    );
    if (!created) throw new ConflictError(`project ${projectId} already exists`);
    return created;
  }

  async createKey(p: Principal, input: CreateKeyInput, opts: { instanceAdmin?: boolean } = {}) {
    const projectId = input.project_id === '' ? p.projectId : input.project_id;
    requireProjectAdmin(p, projectId);
    const violations = validateId('project_id', projectId, ID_MAX_LENGTH);
    if (!isPrincipalTrust(input.trust_level)) {
      violations.push({
        field: 'trust_level',
        description: 'must be one of untrusted, internal, privileged, system',
        reason: 'INVALID_VALUE',
      });
    }
    if (input.bound_agent_id !== undefined)
      violations.push(...validateId('bound_agent_id', input.bound_agent_id, ID_MAX_LENGTH));
    const agentIds = checkAgents(input, violations);
    let expires: Date | null = null;
    if (input.expires_at !== undefined) {
      expires = parseTimestamp('expires_at', input.expires_at, violations) ?? null;
      if (expires !== null && expires.getTime() <= Date.now()) {
        violations.push({
          field: 'expires_at',
          description: 'must be in the future',
          reason: 'INVALID_VALUE',
        });
      }
    }
    if (input.name.length > 200)
      violations.push({ field: 'name', description: 'at most 200 characters', reason: 'TOO_LONG' });
    checkName(input.name, violations);
    check(violations);
    if (!(await this.repo.projectExists(projectId)))
      throw new NotFoundError(`project ${projectId} does not exist`);
    const raw = generateApiKey();
    const keyId = randomUUID();
    const key = await this.repo.insertKey(
      {
        key_id: keyId,
        project_id: projectId,
        name: input.name === '' ? 'key' : input.name,
        key_hash: hashApiKey(raw),
        prefix: displayPrefix(raw),
        trust_level: input.trust_level,
        bound_agent_id: input.bound_agent_id ?? null,
        agent_ids: agentIds,
        any_agent: input.any_agent === true,
        expires_at: expires,
        instance_admin: opts.instanceAdmin ?? false,
      },
      {
        eventType: 'KEY_CREATED',
        projectId,
        apiKeyId: p.keyId,
        details: {
          key_id: keyId,
          trust_level: input.trust_level,
          bound_agent_id: input.bound_agent_id ?? null,
          agent_ids: agentIds,
          any_agent: input.any_agent === true,
          expires_at: expires?.toISOString() ?? null,
          instance_admin: opts.instanceAdmin ?? false,
        },
      },
    );
    return { key, apiKey: raw };
  }

  async listKeys(p: Principal, projectId: string, cursor: string, limit = 100) {
    const project = projectId === '' ? p.projectId : projectId;
    requireProjectAdmin(p, project);
    const violations = validateId('project_id', project, ID_MAX_LENGTH);
    const after = cursor === '' ? undefined : keyCursor(cursor, violations);
    check(violations);
    const keys = await this.repo.listKeys(project, after, limit + 1);
    const page = keys.slice(0, limit);
    const next = keys.length > limit ? encodeCursor(page[page.length - 1]!.key_id) : '';
    return { keys: page, nextCursor: next };
  }

  async revokeKey(p: Principal, keyId: string): Promise<ApiKeyRecord> {
    requireSystem(p);
    const violations: FieldViolation[] = [];
    const id = parseUuid('key_id', keyId, violations);
    if (id === undefined) throw new InvalidArgumentError('request failed validation', violations);
    const existing = await this.repo.findKey(id);
    if (!existing || (!p.instanceAdmin && existing.project_id !== p.projectId))
      throw new NotFoundError('no such key');
    const revoked = await this.repo.revokeKey(existing.key_id, {
      eventType: 'KEY_REVOKED',
      projectId: existing.project_id,
      apiKeyId: p.keyId,
      details: { key_id: existing.key_id, trust_level: existing.trust_level },
    });
    if (!revoked) throw new NotFoundError('no such key');
    return revoked;
  }

  /**
   * Embedded first start: with no key at all, create the project "default" and one system key that
   * is the instance administrator; the caller prints it once.
   */
  async bootstrapFirstKey(): Promise<string | undefined> {
    await this.repo.createProject('default', 'default', {
      eventType: 'PROJECT_CREATED',
      projectId: 'default',
      apiKeyId: 'bootstrap',
      details: { project_id: 'default' },
    });
    if ((await this.repo.countKeys()) > 0) return undefined;
    const system: Principal = {
      projectId: 'default',
      keyId: 'bootstrap',
      trust: 'system',
      instanceAdmin: true,
    };
    const { apiKey } = await this.createKey(
      system,
      { project_id: 'default', name: 'bootstrap', trust_level: 'system' },
      {
        instanceAdmin: true,
      },
    );
    return apiKey;
  }
}
