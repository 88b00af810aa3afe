import { randomBytes } from 'node:crypto';
import { type ApiClient } from '@engram/testing';
import { PRINCIPALS, principalLabel, SCOPES, type PrincipalCell, type Target } from './matrix-spec.ts';
import { type TestEngram } from '@engram/all-in-one/testing';

/** The world the matrix runs in: two projects, keys of every kind in the first, memories in both. */
export interface AuthzWorld {
  readonly projectId: string;
  readonly otherProjectId: string;
  /** Raw key per principal cell label ("internal bound", "revoked key", ...); none has no key. */
  readonly keys: ReadonlyMap<string, string>;
  /** The fixed targets, by targetKey(). */
  readonly targets: ReadonlyMap<string, string>;
  /** Every memory id written in the other project (fixed and fresh): none may ever reach project A. */
  readonly otherProjectIds: Set<string>;
  /** Writes a new target memory (for cells that change it). */
  freshTarget(t: Target): Promise<string>;
  /**
   * A new session, feature or run (pending, started) owned by alice or bob in the own project, or by
   * alice in the other project; its id.
   */
  freshOwned(kind: OwnedKind, owner: 'self' | 'other' | 'other-project'): Promise<string>;
  /** A new key to revoke in the own or other project. */
  keyToRevoke(project: 'same' | 'other'): Promise<string>;
}

export type OwnedKind = 'session' | 'feature' | 'run';

export const targetKey = (t: Target) => `${t.project}/${t.author}/${t.scope}`;

export function keyLabel(p: PrincipalCell): string {
  return p.kind === 'key' ? principalLabel(p) : p.kind;
}

/** Whom a key of this cell acts for, as /admin/keys fields. */
function bindingFields(p: PrincipalCell & { kind: 'key' }): Record<string, unknown> {
  switch (p.binding) {
    case 'bound':
      return { bound_agent_id: 'alice' };
    case 'lists':
      return { agent_ids: ['alice'] };
    case 'any':
      return { any_agent: true };
    default:
      return {};
  }
}

const unique = () => randomBytes(6).toString('hex');

async function ok<T>(res: Promise<{ status: number; body: T; text: string }>, what: string): Promise<T> {
  const r = await res;
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text}`);
  return r.body;
}

export async function buildWorld(t: TestEngram): Promise<AuthzWorld> {
  const run = unique();
  const projectId = `authz-a-${run}`;
  const otherProjectId = `authz-b-${run}`;
  for (const p of [projectId, otherProjectId])
    await ok(t.admin.post('/admin/projects', { project_id: p, name: p }), 'create project');

  const keys = new Map<string, string>();
  const keyOf = async (body: Record<string, unknown>) =>
    ok(
      t.admin.post<{ api_key: string; key_id: string }>('/admin/keys', { name: 'authz', ...body }),
      'create key',
    );
  for (const p of PRINCIPALS) {
    if (p.kind !== 'key') continue;
    const k = await keyOf({ project_id: projectId, trust_level: p.level, ...bindingFields(p) });
    keys.set(keyLabel(p), k.api_key);
  }
  const revoked = await keyOf({ project_id: projectId, trust_level: 'system' });
  await ok(t.admin.request('DELETE', `/admin/keys/${revoked.key_id}`), 'revoke key');
  keys.set('revoked', revoked.api_key);
  const expiresAt = Date.now() + 1_500;
  const expired = await keyOf({
    project_id: projectId,
    trust_level: 'system',
    expires_at: new Date(expiresAt).toISOString(),
  });
  keys.set('expired', expired.api_key);

  const writers = {
    same: t.admin.withKey((await keyOf({ project_id: projectId, trust_level: 'system' })).api_key),
    other: t.admin.withKey((await keyOf({ project_id: otherProjectId, trust_level: 'system' })).api_key),
  };
  const otherProjectIds = new Set<string>();
  const write = async (writer: ApiClient, target: Target) => {
    const author = target.author === 'self' ? 'alice' : 'bob';
    const body = await ok(
      writer.post<{ id: string }>('/memories/add', {
        content: `authz matrix target ${target.project} ${author} ${target.scope} ${unique()}`,
        agent_id: author,
        scope: target.scope,
        shared_with: target.scope === 'agent-shared' ? [author === 'bob' ? 'alice' : 'carol'] : [],
      }),
      'write target',
    );
    if (target.project === 'other') otherProjectIds.add(body.id);
    return body.id;
  };
  const targets = new Map<string, string>();
  for (const project of ['same', 'other'] as const)
    for (const author of ['self', 'other'] as const)
      for (const scope of SCOPES) {
        const target = { project, author, scope };
        targets.set(targetKey(target), await write(writers[project], target));
      }

  const freshOwned = async (kind: OwnedKind, owner: 'self' | 'other' | 'other-project') => {
    const writer = owner === 'other-project' ? writers.other : writers.same;
    const agent_id = owner === 'other' ? 'bob' : 'alice';
    const id = `authz-${kind}-${unique()}`;
    const [path, body]: [string, Record<string, unknown>] =
      kind === 'session'
        ? ['/memories/ace/session', { session_id: id, agent_id }]
        : kind === 'feature'
          ? ['/memories/ace/feature', { feature_id: id, agent_id, description: 'authz matrix' }]
          : ['/ace/run', { run_id: id, agent_id, task_type: 'authz' }];
    await ok(writer.post(path, body), `create ${kind}`);
    return id;
  };

  const wait = expiresAt + 200 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));

  return {
    projectId,
    otherProjectId,
    keys,
    targets,
    otherProjectIds,
    freshTarget: (target) => write(writers[target.project], target),
    freshOwned,
    keyToRevoke: async (project) =>
      (
        await keyOf({
          project_id: project === 'same' ? projectId : otherProjectId,
          trust_level: 'internal',
          any_agent: true,
        })
      ).key_id,
  };
}
