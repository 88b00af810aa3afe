/**
 * The authorization matrix of docs/architecture.md, Authorization, as data: every REST route (read from the
 * descriptor set) x principal x the dimensions that matter to the route, with the expected HTTP status
 * of each cell. matrix.test.ts runs these cells through the gateway and against the gRPC services;
 * render-matrix.ts writes the same cells to matrix.md for a reader to check against docs/architecture.md, Authorization.
 *
 * The expectations are written from the rules (docs/architecture.md, Authorization), not from the code: the actor is agent "alice" (the
 * bound agent of bound keys, the agent_id an unbound key names); targets are authored by alice ("self")
 * or bob ("other"); bob's agent-shared memories are shared with alice, alice's with carol. Whom a key
 * may act for is docs/decisions.md's rule: a bound key its agent, an internal key the agents it lists
 * (here: alice) or any agent when created with any_agent, a privileged or system key any agent
 * unless bound; an untrusted key is always bound.
 */
export const LEVELS = ['untrusted', 'internal', 'privileged', 'system'] as const;
export type Level = (typeof LEVELS)[number];
export const SCOPES = ['agent-private', 'agent-shared', 'global'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * Whom a key acts for: bound (to alice), lists (agent_ids [alice]), any (any_agent), unbound
 * (privileged and system keys without a binding: any agent).
 */
export type Binding = 'bound' | 'lists' | 'any' | 'unbound';

export type PrincipalCell =
  | { readonly kind: 'key'; readonly level: Level; readonly binding: Binding }
  | { readonly kind: 'none' | 'revoked' | 'expired' };

/** The keys that can be created: untrusted keys are bound, internal keys bound or listing or any_agent. */
export const PRINCIPALS: readonly PrincipalCell[] = [
  { kind: 'key', level: 'untrusted', binding: 'bound' },
  { kind: 'key', level: 'internal', binding: 'bound' },
  { kind: 'key', level: 'internal', binding: 'lists' },
  { kind: 'key', level: 'internal', binding: 'any' },
  ...(['privileged', 'system'] as const).flatMap((level) => [
    { kind: 'key', level, binding: 'unbound' } as const,
    { kind: 'key', level, binding: 'bound' } as const,
  ]),
  { kind: 'none' },
  { kind: 'revoked' },
  { kind: 'expired' },
];

/** May a key of this binding act as bob (an agent other than alice)? */
export function actsForOthers(binding: Binding): boolean {
  return binding === 'any' || binding === 'unbound';
}

export interface Target {
  readonly project: 'same' | 'other';
  readonly author: 'self' | 'other';
  readonly scope: Scope;
}

/** The varying part of a cell besides the principal. */
export type Column =
  | { readonly kind: 'target'; readonly target: Target }
  | { readonly kind: 'named'; readonly named: 'self' | 'other' }
  | { readonly kind: 'write'; readonly named: 'self' | 'other'; readonly scope: Scope }
  | { readonly kind: 'project'; readonly project: 'same' | 'other' }
  | { readonly kind: 'owner'; readonly owner: 'self' | 'other' | 'other-project' }
  | { readonly kind: 'none' };

/**
 * Route kinds: what the route does with respect to docs/architecture.md, Authorization.
 * - memory-read: reads one memory by id (visible -> 200, else 404)
 * - memory-modify: deprecate / delete / relabel (narrowing) one memory (own or privileged; 403 if
 *   visible but not allowed; 404 if invisible)
 * - security-memory / security: /security/* (privileged or system, else 403 ADMIN_REQUIRED)
 * - admin: /admin (system, own project; other project -> 403); admin-project: creating projects
 *   (instance administrator only; no project key may); admin-key: revoking a key by id (system; a
 *   key of another project is unknown: 404)
 * - agent-read: a read that names the reader (naming an agent the key may not act for -> 403)
 * - write: a write naming an agent and a scope (the principal table of docs/architecture.md, write column)
 * - agent-action: a non-memory action naming an agent (naming one the key may not act for -> 403,
 *   else 200)
 * - owned: reads or changes an object (session, feature, run) owned by alice, by bob, or by alice in
 *   another project: a key that may act as the owner, or a privileged key, -> 200; anyone else ->
 *   404 (existence not revealed)
 * - owned-act: the same, but the change acts as the owner (completing a run votes as its agent): a
 *   privileged key bound to another agent sees the object but is refused (403 AGENT_MISMATCH)
 * - project-action: acts on the project without naming an agent (200 for every valid key)
 */
export type RouteKind =
  | 'memory-read'
  | 'memory-modify'
  | 'security-memory'
  | 'security'
  | 'admin'
  | 'admin-project'
  | 'admin-key'
  | 'agent-read'
  | 'write'
  | 'agent-action'
  | 'owned'
  | 'owned-act'
  | 'project-action';

/** Every RPC with a REST route, by its gRPC method path. A route missing here fails the matrix test. */
export const ROUTE_KINDS: Readonly<Record<string, RouteKind>> = {
  '/engram.ingest.v1.IngestService/AddMemory': 'write',
  '/engram.ingest.v1.IngestService/AddMemoryBatch': 'write',
  '/engram.ingest.v1.IngestService/ImportMemories': 'write',
  '/engram.ingest.v1.IngestService/AddEpisodic': 'write',
  '/engram.ingest.v1.IngestService/AddSemantic': 'write',
  '/engram.ingest.v1.IngestService/AddProcedural': 'write',
  '/engram.ingest.v1.IngestService/AddControl': 'write',
  '/engram.memory.v1.MemoryStoreService/GetMemory': 'memory-read',
  '/engram.memory.v1.MemoryStoreService/RelabelMemory': 'memory-modify',
  '/engram.memory.v1.MemoryStoreService/DeprecateMemory': 'memory-modify',
  '/engram.memory.v1.MemoryStoreService/DeleteMemory': 'memory-modify',
  '/engram.memory.v1.MemoryStoreService/ExportMemories': 'agent-read',
  '/engram.memory.v1.MemoryStoreService/GetSessionTimeline': 'agent-read',
  '/engram.memory.v1.MemoryStoreService/GetEntityMemories': 'agent-read',
  '/engram.retrieval.v1.RetrievalService/Query': 'agent-read',
  '/engram.retrieval.v1.RetrievalService/HybridQuery': 'agent-read',
  '/engram.retrieval.v1.RetrievalService/TypedQuery': 'agent-read',
  '/engram.retrieval.v1.RetrievalService/Playbook': 'agent-read',
  '/engram.retrieval.v1.RetrievalService/AgentPlaybook': 'agent-read',
  '/engram.retrieval.v1.RetrievalService/Handoff': 'agent-read',
  '/engram.retrieval.v1.RetrievalService/LoadContext': 'agent-read',
  '/engram.ace.v1.AceService/Vote': 'memory-read',
  '/engram.ace.v1.AceService/ApplyDelta': 'write',
  '/engram.ace.v1.AceService/AddReflection': 'write',
  '/engram.ace.v1.AceService/CreateSession': 'agent-action',
  '/engram.ace.v1.AceService/GetSession': 'owned',
  '/engram.ace.v1.AceService/UpdateSession': 'owned',
  '/engram.ace.v1.AceService/CreateFeature': 'agent-action',
  '/engram.ace.v1.AceService/GetFeature': 'owned',
  '/engram.ace.v1.AceService/CompleteFeature': 'owned',
  '/engram.ace.v1.AceService/FailFeature': 'owned',
  '/engram.ace.v1.AceService/ListFeatures': 'project-action',
  '/engram.ace.v1.AceService/StartRun': 'agent-action',
  '/engram.ace.v1.AceService/GetRun': 'owned',
  '/engram.ace.v1.AceService/CompleteRun': 'owned-act',
  '/engram.ace.v1.AceService/Curate': 'agent-read',
  '/engram.ace.v1.AceService/Consolidate': 'agent-read',
  '/engram.security.v1.SecurityAdminService/Scan': 'security',
  '/engram.security.v1.SecurityAdminService/ListAuditEvents': 'security',
  '/engram.security.v1.SecurityAdminService/ListFlagged': 'security',
  '/engram.security.v1.SecurityAdminService/Verify': 'security-memory',
  '/engram.security.v1.SecurityAdminService/GetConfig': 'security',
  '/engram.admin.v1.AdminService/CreateProject': 'admin-project',
  '/engram.admin.v1.AdminService/CreateKey': 'admin',
  '/engram.admin.v1.AdminService/ListKeys': 'admin',
  '/engram.admin.v1.AdminService/GetCaller': 'project-action',
  '/engram.admin.v1.AdminService/RevokeKey': 'admin-key',
};

const TARGETS: readonly Target[] = (['same', 'other'] as const).flatMap((project) =>
  (['self', 'other'] as const).flatMap((author) => SCOPES.map((scope) => ({ project, author, scope }))),
);

export function columnsOf(kind: RouteKind): readonly Column[] {
  switch (kind) {
    case 'memory-read':
    case 'memory-modify':
      return TARGETS.map((target) => ({ kind: 'target', target }));
    case 'security-memory':
    case 'admin':
    case 'admin-key':
      return [
        { kind: 'project', project: 'same' },
        { kind: 'project', project: 'other' },
      ];
    case 'agent-read':
    case 'agent-action':
      return [
        { kind: 'named', named: 'self' },
        { kind: 'named', named: 'other' },
      ];
    case 'write':
      return (['self', 'other'] as const).flatMap((named) =>
        SCOPES.map((scope) => ({ kind: 'write', named, scope }) as const),
      );
    case 'owned':
    case 'owned-act':
      return (['self', 'other', 'other-project'] as const).map(
        (owner) => ({ kind: 'owner', owner }) as const,
      );
    default:
      return [{ kind: 'none' }];
  }
}

const rank = (l: Level) => LEVELS.indexOf(l);

/** Can alice (acting through a key of this level) read the target? docs/architecture.md, Authorization, read column. */
export function visible(level: Level, t: Target): boolean {
  if (t.project === 'other') return false;
  if (rank(level) >= rank('privileged')) return true;
  return t.scope === 'global' || t.author === 'self' || t.scope === 'agent-shared';
}

/** Settings the expectations depend on. */
export interface MatrixSettings {
  /** ENABLE_TRUST_LEVELS: internal principals may not write global. */
  readonly enableTrustLevels: boolean;
}

export const DEFAULT_SETTINGS: MatrixSettings = { enableTrustLevels: false };
export const TRUST_LEVELS_ON: MatrixSettings = { enableTrustLevels: true };

/** The routes whose expectations depend on ENABLE_TRUST_LEVELS. */
export function isWriteRoute(route: { readonly grpcPath: string }): boolean {
  return ROUTE_KINDS[route.grpcPath] === 'write';
}

/** The expected HTTP status of one cell. */
export function expectedStatus(
  kind: RouteKind,
  p: PrincipalCell,
  c: Column,
  settings: MatrixSettings = DEFAULT_SETTINGS,
): number {
  if (p.kind !== 'key') return 401;
  const { level, binding } = p;
  const named = c.kind === 'named' || c.kind === 'write' ? c.named : 'self';
  // AGENT_MISMATCH on every agent-naming field that names an agent the key may not act for.
  if (!actsForOthers(binding) && named === 'other') return 403;
  const privileged = rank(level) >= rank('privileged');
  switch (kind) {
    case 'memory-read':
      return c.kind === 'target' && visible(level, c.target) ? 200 : 404;
    case 'memory-modify': {
      if (c.kind !== 'target' || !visible(level, c.target)) return 404;
      return rank(level) >= rank('privileged') || c.target.author === 'self' ? 200 : 403;
    }
    case 'security':
      return rank(level) >= rank('privileged') ? 200 : 403;
    case 'security-memory':
      if (rank(level) < rank('privileged')) return 403;
      return c.kind === 'project' && c.project === 'other' ? 404 : 200;
    case 'admin':
      if (level !== 'system') return 403;
      return c.kind === 'project' && c.project === 'other' ? 403 : 200;
    case 'admin-key':
      if (level !== 'system') return 403;
      return c.kind === 'project' && c.project === 'other' ? 404 : 200;
    case 'admin-project':
      return 403;
    case 'write': {
      if (c.kind !== 'write') return 200;
      if (level === 'untrusted' && c.scope !== 'agent-private') return 403;
      if (level === 'internal' && c.scope === 'global' && settings.enableTrustLevels) return 403;
      return 200;
    }
    case 'owned':
    case 'owned-act': {
      if (c.kind !== 'owner' || c.owner === 'other-project') return 404;
      if (c.owner === 'self') return 200;
      if (!privileged && !actsForOthers(binding)) return 404;
      return kind === 'owned-act' && binding === 'bound' ? 403 : 200;
    }
    default:
      return 200;
  }
}

const BINDING_LABEL: Readonly<Record<Binding, string>> = {
  bound: 'bound',
  lists: 'lists alice',
  any: 'any agent',
  unbound: 'unbound',
};

export function principalLabel(p: PrincipalCell): string {
  return p.kind === 'key' ? `${p.level} ${BINDING_LABEL[p.binding]}` : `${p.kind} key`;
}

export function columnLabel(c: Column): string {
  switch (c.kind) {
    case 'target':
      return `${c.target.project === 'same' ? 'own project' : 'other project'}, ${c.target.author === 'self' ? 'by alice' : 'by bob'}, ${c.target.scope}`;
    case 'named':
      return c.named === 'self' ? 'names alice' : 'names bob';
    case 'write':
      return `${c.named === 'self' ? 'as alice' : 'as bob'}, ${c.scope}`;
    case 'project':
      return c.project === 'same' ? 'own project' : 'other project';
    case 'owner':
      return c.owner === 'self' ? "alice's" : c.owner === 'other' ? "bob's" : "alice's, other project";
    default:
      return '-';
  }
}
