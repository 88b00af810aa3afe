import type { Column } from './matrix-spec.ts';

export type Json = Record<string, unknown>;

/** What a request builder may use: the cell's column resolved to real ids of the running suite. */
export interface RequestContext {
  readonly column: Column;
  /** The target memory's id (memory routes) or a memory id in the own/other project (security). */
  readonly memoryId: string;
  /** alice, or bob when the column names the other agent. */
  readonly agent: string;
  /** A value never used before (content, ids). */
  readonly fresh: string;
  readonly projectId: string;
  readonly otherProjectId: string;
  /** The session, feature or run of an owned route's column (owned by alice, bob, or in the other project). */
  readonly owned: string;
  /** A key id to revoke: in the own project, or in the other project. */
  readonly keyToRevoke: string;
}

const scopeOf = (c: Column) => (c.kind === 'write' ? c.scope : 'agent-private');
const sharedOf = (c: Column) => (scopeOf(c) === 'agent-shared' ? ['carol'] : []);
const projectOf = (r: RequestContext) =>
  r.column.kind === 'project' && r.column.project === 'other' ? r.otherProjectId : r.projectId;

const write = (r: RequestContext): Json => ({
  content: `authz matrix write ${r.fresh}`,
  agent_id: r.agent,
  scope: scopeOf(r.column),
  shared_with: sharedOf(r.column),
});

const query = (r: RequestContext): Json => ({ query: 'authz matrix', agent_id: r.agent, top_k: 100 });

/** The request fields (proto JSON names, path variables included) of each route's cell. */
export const REQUESTS: Readonly<Record<string, (r: RequestContext) => Json>> = {
  '/engram.ingest.v1.IngestService/AddMemory': write,
  '/engram.ingest.v1.IngestService/AddMemoryBatch': (r) => ({ items: [write(r)] }),
  '/engram.ingest.v1.IngestService/ImportMemories': (r) => ({ memories: [write(r)] }),
  '/engram.ingest.v1.IngestService/AddEpisodic': (r) => ({ ...write(r), session_id: 'authz-session' }),
  '/engram.ingest.v1.IngestService/AddSemantic': (r) => ({ ...write(r), entity_id: 'authz-entity' }),
  '/engram.ingest.v1.IngestService/AddProcedural': (r) => ({ ...write(r), steps: ['one', 'two'] }),
  '/engram.ingest.v1.IngestService/AddControl': (r) => ({ ...write(r), error_pattern: 'E4711' }),
  '/engram.memory.v1.MemoryStoreService/GetMemory': (r) => ({ id: r.memoryId, agent_id: r.agent }),
  '/engram.memory.v1.MemoryStoreService/RelabelMemory': (r) => ({
    id: r.memoryId,
    agent_id: r.agent,
    scope: 'agent-private',
  }),
  '/engram.memory.v1.MemoryStoreService/DeprecateMemory': (r) => ({
    id: r.memoryId,
    agent_id: r.agent,
    reason: 'authorization matrix',
  }),
  '/engram.memory.v1.MemoryStoreService/DeleteMemory': (r) => ({ id: r.memoryId, agent_id: r.agent }),
  '/engram.memory.v1.MemoryStoreService/ExportMemories': (r) => ({ agent_id: r.agent }),
  '/engram.memory.v1.MemoryStoreService/GetSessionTimeline': (r) => ({
    session_id: 'authz-session',
    agent_id: r.agent,
  }),
  '/engram.memory.v1.MemoryStoreService/GetEntityMemories': (r) => ({
    entity_id: 'authz-entity',
    agent_id: r.agent,
  }),
  '/engram.retrieval.v1.RetrievalService/Query': query,
  '/engram.retrieval.v1.RetrievalService/HybridQuery': query,
  '/engram.retrieval.v1.RetrievalService/TypedQuery': query,
  '/engram.retrieval.v1.RetrievalService/Playbook': (r) => ({ query: 'authz matrix', agent_id: r.agent }),
  '/engram.retrieval.v1.RetrievalService/AgentPlaybook': (r) => ({
    agent_id: r.agent,
    query: 'authz matrix',
    task_type: 'authz',
  }),
  '/engram.retrieval.v1.RetrievalService/Handoff': (r) => ({
    source_agent_id: r.agent,
    target_agent_id: r.agent === 'alice' ? 'bob' : 'carol',
    task_context: 'authz matrix',
    max_memories: 50,
  }),
  '/engram.retrieval.v1.RetrievalService/LoadContext': (r) => ({
    agent_id: r.agent,
    query: 'authz matrix',
    token_budget: 2000,
  }),
  '/engram.ace.v1.AceService/Vote': (r) => ({
    memory_id: r.memoryId,
    vote: 'helpful',
    voter_agent_id: r.agent,
    task_id: r.fresh,
  }),
  '/engram.ace.v1.AceService/ApplyDelta': (r) => ({
    agent_id: r.agent,
    operations: [
      {
        type: 'add',
        content: `authz matrix delta ${r.fresh}`,
        agent_id: r.agent,
        scope: scopeOf(r.column),
      },
    ],
  }),
  '/engram.ace.v1.AceService/AddReflection': (r) => ({
    content: `authz matrix reflection ${r.fresh}`,
    agent_id: r.agent,
    scope: scopeOf(r.column),
    error_pattern: 'E4711',
    correct_approach: 'check the canary',
  }),
  '/engram.ace.v1.AceService/CreateSession': (r) => ({ session_id: `s-${r.fresh}`, agent_id: r.agent }),
  // Owned objects are named by id alone: whether the key may act as their owner decides.
  '/engram.ace.v1.AceService/GetSession': (r) => ({ session_id: r.owned }),
  '/engram.ace.v1.AceService/UpdateSession': (r) => ({ session_id: r.owned, summary: 'authz matrix' }),
  '/engram.ace.v1.AceService/CreateFeature': (r) => ({
    feature_id: `f-${r.fresh}`,
    agent_id: r.agent,
    description: 'authz matrix',
    test_steps: ['one'],
  }),
  '/engram.ace.v1.AceService/GetFeature': (r) => ({ feature_id: r.owned }),
  '/engram.ace.v1.AceService/CompleteFeature': (r) => ({ feature_id: r.owned, verified_by: 'alice' }),
  '/engram.ace.v1.AceService/FailFeature': (r) => ({ feature_id: r.owned, reason: 'authz matrix' }),
  '/engram.ace.v1.AceService/ListFeatures': () => ({}),
  '/engram.admin.v1.AdminService/GetCaller': () => ({}),
  '/engram.ace.v1.AceService/StartRun': (r) => ({
    run_id: `r-${r.fresh}`,
    agent_id: r.agent,
    task_type: 'authz',
  }),
  '/engram.ace.v1.AceService/GetRun': (r) => ({ run_id: r.owned }),
  '/engram.ace.v1.AceService/CompleteRun': (r) => ({ run_id: r.owned, success: true }),
  '/engram.ace.v1.AceService/Curate': (r) => ({ agent_id: r.agent }),
  '/engram.ace.v1.AceService/Consolidate': (r) => ({ agent_id: r.agent, dry_run: true }),
  '/engram.security.v1.SecurityAdminService/Scan': () => ({ content: 'a harmless sentence' }),
  '/engram.security.v1.SecurityAdminService/ListAuditEvents': () => ({}),
  '/engram.security.v1.SecurityAdminService/ListFlagged': () => ({}),
  '/engram.security.v1.SecurityAdminService/Verify': (r) => ({ memory_id: r.memoryId }),
  '/engram.security.v1.SecurityAdminService/GetConfig': () => ({}),
  '/engram.admin.v1.AdminService/CreateProject': (r) => ({ project_id: `p-${r.fresh}`, name: 'authz' }),
  '/engram.admin.v1.AdminService/CreateKey': (r) => ({
    project_id: projectOf(r),
    name: 'authz',
    trust_level: 'internal',
    any_agent: true,
  }),
  '/engram.admin.v1.AdminService/ListKeys': (r) => ({ project_id: projectOf(r) }),
  '/engram.admin.v1.AdminService/RevokeKey': (r) => ({ key_id: r.keyToRevoke }),
};
