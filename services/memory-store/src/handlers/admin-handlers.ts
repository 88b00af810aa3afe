import type { Principal } from '@engram/auth';
import type { HandlersOf } from '@engram/grpc-kit';
import type { AdminServiceService, ApiKey } from '@engram/proto/engram/admin/v1/admin';
import type { ApiKeyRecord, KeyService } from '../domain/keys.ts';

function toProtoKey(k: ApiKeyRecord): ApiKey {
  return {
    key_id: k.key_id,
    project_id: k.project_id,
    name: k.name,
    trust_level: k.trust_level,
    bound_agent_id: k.bound_agent_id ?? undefined,
    agent_ids: [...k.agent_ids],
    any_agent: k.any_agent,
    expires_at: k.expires_at?.toISOString(),
    revoked_at: k.revoked_at?.toISOString(),
    created_at: k.created_at.toISOString(),
    prefix: k.prefix,
  };
}

/** /admin: projects and keys, system principals only (rules in domain/keys.ts); /auth/whoami: any key. */
export function adminHandlers(keys: KeyService): Partial<HandlersOf<typeof AdminServiceService, Principal>> {
  return {
    getCaller(_req, { principal }) {
      return Promise.resolve({
        project_id: principal.projectId,
        key_id: principal.keyId,
        trust_level: principal.trust,
        bound_agent_id: principal.boundAgentId,
        agent_ids: [...(principal.agentIds ?? [])],
        any_agent: principal.anyAgent ?? false,
        instance_admin: principal.instanceAdmin,
      });
    },
    async createProject(req, { principal }) {
      const p = await keys.createProject(principal, req.project_id, req.name);
      return { project_id: p.project_id, name: p.name, created_at: p.created_at.toISOString() };
    },
    async createKey(req, { principal }) {
      const { key, apiKey } = await keys.createKey(principal, req);
      return { key_id: key.key_id, api_key: apiKey, key: toProtoKey(key) };
    },
    async listKeys(req, { principal }) {
      const { keys: page, nextCursor } = await keys.listKeys(principal, req.project_id, req.cursor);
      return { keys: page.map(toProtoKey), next_cursor: nextCursor };
    },
    async revokeKey(req, { principal }) {
      return toProtoKey(await keys.revokeKey(principal, req.key_id));
    },
  };
}
