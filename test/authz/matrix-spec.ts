/**
 * The authorization matrix of DESIGN.md section 5, as data: every REST route (read from the
 * descriptor set) x principal x the dimensions that matter to the route, with the expected HTTP status
 * of each cell. matrix.test.ts runs these cells through the gateway and against the gRPC services;
 * render-matrix.ts writes the same cells to matrix.md for a reader to check against DESIGN.md.
 *
 * The expectations are written from DESIGN.md, not from the code: the actor is agent "alice" (the
 * bound agent of bound keys, the agent_id an unbound key names); targets are authored by alice ("self")
 * or bob ("other"); bob's agent-shared memories are shared with alice, alice's with carol.
 */
export const LEVELS = ['untrusted', 'internal', 'privileged', 'system'] as const;
export type Level = (typeof LEVELS)[number];
export const SCOPES = ['agent-private', 'agent-shared', 'global'] as const;
export type Scope = (typeof SCOPES)[number];

export type PrincipalCell =
  | { readonly kind: 'key'; readonly level: Level; readonly bound: boolean }
  | { readonly kind: 'none' | 'revoked' | 'expired' };

export const PRINCIPALS: readonly PrincipalCell[] = [
  ...LEVELS.flatMap((level) => [
    { kind: 'key', level, bound: false } as const,
    { kind: 'key', level, bound: true } as const,
  ]),
  { kind: 'none' },
  { kind: 'revoked' },
  { kind: 'expired' },
];

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
  | { readonly kind: 'none' };

/**
 * Route kinds: what the route does with respect to DESIGN.md section 5.
 * - memory-read: reads one memory by id (visible -> 200, else 404)
 * - memory-modify: deprecate / delete / relabel (narrowing) one memory (own or privileged; 403 if
 *   visible but not allowed; 404 if invisible)
 * - security-memory / security: /security/* (privileged or system, else 403 ADMIN_REQUIRED)
 * - admin: /admin (system, own project; other project -> 403); admin-project: creating projects
 *   (instance administrator only; no project key may); admin-key: revoking a key by id (system; a
 *   key of another project is unknown: 404)
 * - agent-read: a read that names the reader (bound key naming another agent -> 403)
 * - write: a write naming an agent and a scope (DESIGN.md principal table, write column)
 * - agent-action: a non-memory action naming an agent (bound mismatch -> 403, else 200)
 * - foreign-id: reads or changes an object (session, feature, run) by an id that exists only in
 *   another project -> 404 for everyone
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
  | 'foreign-id'
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
  '/engram.ace.v1.AceService/GetSession': 'foreign-id',
  '/engram.ace.v1.AceService/UpdateSession': 'foreign-id',
  '/engram.ace.v1.AceService/CreateFeature': 'project-action',
  '/engram.ace.v1.AceService/GetFeature': 'foreign-id',
  '/engram.ace.v1.AceService/CompleteFeature': 'foreign-id',
  '/engram.ace.v1.AceService/FailFeature': 'foreign-id',
  '/engram.ace.v1.AceService/ListFeatures': 'project-action',
  '/engram.ace.v1.AceService/StartRun': 'agent-action',
  '/engram.ace.v1.AceService/GetRun': 'foreign-id',
  '/engram.ace.v1.AceService/CompleteRun': 'foreign-id',
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
    default:
      return [{ kind: 'none' }];
  }
}

const rank = (l: Level) => LEVELS.indexOf(l);

/** Can alice (acting through a key of this level) read the target? DESIGN.md section 5, read column. */
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
  const { level, bound } = p;
  const named = c.kind === 'named' || c.kind === 'write' ? c.named : 'self';
  if (bound && named === 'other') return 403; // AGENT_MISMATCH on every agent-naming field
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
    case 'foreign-id':
      return 404;
    default:
      return 200;
  }
}

export function principalLabel(p: PrincipalCell): string {
  return p.kind === 'key' ? `${p.level} ${p.bound ? 'bound' : 'unbound'}` : `${p.kind} key`;
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
    default:
      return '-';
  }
}
