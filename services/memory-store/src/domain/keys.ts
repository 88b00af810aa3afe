import { randomUUID } from 'node:crypto';
import { displayPrefix, generateApiKey, hashApiKey, isPrincipalTrust, type Principal } from '@engram/auth';
import {
  ConflictError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  type FieldViolation,
} from '@engram/errors';
import { ID_MAX_LENGTH, validateId } from '@engram/security-rules';

export interface ProjectRecord {
  readonly project_id: string;
  readonly name: string;
  readonly created_at: Date;
}

export interface ApiKeyRecord {
  readonly key_id: string;
  readonly project_id: string;
  readonly name: string;
  readonly prefix: string;
  readonly trust_level: string;
  readonly bound_agent_id: string | null;
  readonly expires_at: Date | null;
  readonly revoked_at: Date | null;
  readonly instance_admin: boolean;
  readonly created_at: Date;
}

export interface NewKey {
  readonly key_id: string;
  readonly project_id: string;
  readonly name: string;
  readonly key_hash: string;
  readonly prefix: string;
  readonly trust_level: string;
  readonly bound_agent_id: string | null;
  readonly expires_at: Date | null;
  readonly instance_admin: boolean;
}

export interface KeyRepository {
  /** undefined when the project already exists. */
  createProject(projectId: string, name: string): Promise<ProjectRecord | undefined>;
  projectExists(projectId: string): Promise<boolean>;
  countKeys(): Promise<number>;
  insertKey(k: NewKey): Promise<ApiKeyRecord>;
  listKeys(projectId: string, after: string | undefined, limit: number): Promise<ApiKeyRecord[]>;
  findKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  revokeKey(keyId: string): Promise<ApiKeyRecord | undefined>;
}

export interface CreateKeyInput {
  readonly project_id: string;
  readonly name: string;
  readonly trust_level: string;
  readonly bound_agent_id?: string | undefined;
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

/** Key and project administration (DESIGN.md section 5): the raw key is returned once. */
export class KeyService {
  constructor(private readonly repo: KeyRepository) {}

  async createProject(p: Principal, projectId: string, name: string): Promise<ProjectRecord> {
    if (!p.instanceAdmin)
      throw new PermissionDeniedError('only the instance administrator creates projects', 'ADMIN_REQUIRED');
    check(validateId('project_id', projectId, ID_MAX_LENGTH));
    const created = await this.repo.createProject(
      projectId,
      name.trim() === '' ? projectId : name.slice(0, 200),
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
    let expires: Date | null = null;
    if (input.expires_at !== undefined) {
      expires = new Date(input.expires_at);
      if (Number.isNaN(expires.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(input.expires_at)) {
        violations.push({
          field: 'expires_at',
          description: 'must be an RFC 3339 timestamp',
          reason: 'INVALID_VALUE',
        });
      } else if (expires.getTime() <= Date.now()) {
        violations.push({
          field: 'expires_at',
          description: 'must be in the future',
          reason: 'INVALID_VALUE',
        });
      }
    }
    if (input.name.length > 200)
      violations.push({ field: 'name', description: 'at most 200 characters', reason: 'TOO_LONG' });
    check(violations);
    if (!(await this.repo.projectExists(projectId)))
      throw new NotFoundError(`project ${projectId} does not exist`);
    const raw = generateApiKey();
    const key = await this.repo.insertKey({
      key_id: randomUUID(),
      project_id: projectId,
      name: input.name === '' ? 'key' : input.name,
      key_hash: hashApiKey(raw),
      prefix: displayPrefix(raw),
      trust_level: input.trust_level,
      bound_agent_id: input.bound_agent_id ?? null,
      expires_at: expires,
      instance_admin: opts.instanceAdmin ?? false,
    });
    return { key, apiKey: raw };
  }

  async listKeys(p: Principal, projectId: string, cursor: string, limit = 100) {
    const project = projectId === '' ? p.projectId : projectId;
    requireProjectAdmin(p, project);
    const after = cursor === '' ? undefined : Buffer.from(cursor, 'base64url').toString('utf8');
    const keys = await this.repo.listKeys(project, after, limit + 1);
    const page = keys.slice(0, limit);
    const next =
      keys.length > limit ? Buffer.from(page[page.length - 1]!.key_id, 'utf8').toString('base64url') : '';
    return { keys: page, nextCursor: next };
  }

  async revokeKey(p: Principal, keyId: string): Promise<ApiKeyRecord> {
    requireSystem(p);
    const existing = /^[0-9a-f-]{36}$/i.test(keyId) ? await this.repo.findKey(keyId) : undefined;
    if (!existing || (!p.instanceAdmin && existing.project_id !== p.projectId))
      throw new NotFoundError('no such key');
    const revoked = await this.repo.revokeKey(keyId);
    if (!revoked) throw new NotFoundError('no such key');
    return revoked;
  }

  /**
   * Embedded first start: with no key at all, create the project "default" and one system key that
   * is the instance administrator; the caller prints it once.
   */
  async bootstrapFirstKey(): Promise<string | undefined> {
    await this.repo.createProject('default', 'default');
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
