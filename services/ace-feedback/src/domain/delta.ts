import { actingAgent, isPrivileged, readerOf, type Caller, type Principal } from '@engram/auth';
import { isUuid, SecurityRejectedError, type DetectionInfo } from '@engram/errors';
import type { Deprecation, WriteRequest } from '@engram/memory-model';
import { ID_MAX_LENGTH } from '@engram/security-rules';
import { FieldChecks } from './field-checks.ts';
import type { MemoryLookup, WritePipeline } from './ports.ts';

export const DELTA_MAX_OPERATIONS = 100;
export const DEPRECATION_REASON_MAX_LENGTH = 2000;

export interface DeltaOperation {
  readonly type: string;
  readonly content: string;
  readonly memoryType?: string | undefined;
  readonly agentId: string;
  readonly scope?: string | undefined;
  readonly namespace?: string | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly memoryId: string;
  readonly supersededBy?: string | undefined;
  readonly deprecationReason: string;
}

/** applied (stored), rejected (the reason the whole delta was refused), not_applied (refused with it). */
export type OperationStatus = 'applied' | 'rejected' | 'not_applied';

export interface OperationResult {
  readonly index: number;
  readonly type: 'add' | 'deprecate';
  readonly memoryId?: string | undefined;
  readonly status: OperationStatus;
  readonly reason?: string | undefined;
  readonly detections: readonly DetectionInfo[];
}

export interface DeltaOutcome {
  readonly applied: boolean;
  readonly results: OperationResult[];
}

function validate(ops: readonly DeltaOperation[], agentId: string): void {
  const checks = new FieldChecks().id('agent_id', agentId, ID_MAX_LENGTH);
  if (ops.length === 0 || ops.length > DELTA_MAX_OPERATIONS)
    checks.add('operations', `must hold 1 to ${DELTA_MAX_OPERATIONS} operations`);
  ops.forEach((op, i) => {
    const f = `operations[${i}]`;
    if (op.type === 'add') {
      checks.id(`${f}.agent_id`, op.agentId, ID_MAX_LENGTH);
      if (op.memoryId !== '' || op.supersededBy !== undefined || op.deprecationReason !== '')
        checks.add(f, 'an add operation takes content, memory_type, agent_id, scope, namespace, metadata');
    } else if (op.type === 'deprecate') {
      if (op.memoryId === '') checks.add(`${f}.memory_id`, 'is required', 'REQUIRED');
      checks.text(`${f}.deprecation_reason`, op.deprecationReason, DEPRECATION_REASON_MAX_LENGTH);
      if (op.supersededBy !== undefined && op.supersededBy !== '' && !isUuid(op.supersededBy))
        checks.add(`${f}.superseded_by`, 'must be a memory id or null');
      if (op.content !== '')
        checks.add(f, 'a deprecate operation takes memory_id, superseded_by, deprecation_reason');
    } else {
      checks.add(`${f}.type`, 'must be add or deprecate');
    }
  });
  checks.throwIfAny();
}

const refused = (
  ops: readonly DeltaOperation[],
  culprit: (i: number) => { reason: string; detections?: readonly DetectionInfo[] } | undefined,
): DeltaOutcome => ({
  applied: false,
  results: ops.map((op, index) => {
    const c = culprit(index);
    return {
      index,
      type: op.type as 'add' | 'deprecate',
      memoryId: op.type === 'deprecate' ? op.memoryId.toLowerCase() : undefined,
      status: c ? 'rejected' : 'not_applied',
      reason: c?.reason,
      detections: c?.detections ?? [],
    };
  }),
});

/**
 * Applies a delta: adds and deprecations, all or nothing, in one memory-store transaction through the
 * write pipeline (IngestInternal kind delta, atomic). Nothing else of the context is rewritten. A
 * deprecation must name a live memory the acting agent wrote (or any, for a privileged key) that it
 * can read; superseded_by must name a memory it can read. When one operation is refused, the whole
 * delta is: that operation is `rejected` with its reason (and detections), the others `not_applied`.
 */
export async function applyDelta(
  deps: { memories: MemoryLookup; pipeline: WritePipeline },
  principal: Principal,
  caller: Caller,
  req: { agentId: string; operations: readonly DeltaOperation[] },
): Promise<DeltaOutcome> {
  validate(req.operations, req.agentId);
  const agentId = actingAgent(principal, req.agentId);
  const adds: { index: number; item: WriteRequest }[] = [];
  const deprecations: { index: number; dep: Deprecation }[] = [];
  req.operations.forEach((op, index) => {
    if (op.type === 'add') {
      adds.push({
        index,
        item: {
          content: op.content,
          agent_id: actingAgent(principal, op.agentId || agentId, `operations[${index}].agent_id`),
          memory_type: op.memoryType,
          scope: op.scope,
          namespace: op.namespace,
          metadata: op.metadata,
          shared_with: [],
          steps: [],
          trigger_conditions: [],
        },
      });
    } else {
      const superseded =
        op.supersededBy === undefined || op.supersededBy === '' ? undefined : op.supersededBy.toLowerCase();
      deprecations.push({
        index,
        dep: {
          memory_id: op.memoryId.toLowerCase(),
          superseded_by: superseded,
          reason: op.deprecationReason,
        },
      });
    }
  });

  const problem = await checkDeprecations(deps.memories, principal, agentId, deprecations);
  if (problem) return refused(req.operations, (i) => (i === problem.index ? problem : undefined));

  const res = await deps.pipeline.ingest(
    {
      items: adds.map((a) => a.item),
      kind: 'delta',
      depth: 0,
      atomic: true,
      // Each deprecation acts as the delta's agent, in the same transaction as the adds.
      deprecations: deprecations.map((d) => ({ ...d.dep, agent_id: agentId })),
    },
    caller,
  );
  const byOp = new Map(adds.map((a, k) => [a.index, res.results[k]]));
  if (!res.applied) {
    return refused(req.operations, (i) => {
      const e = byOp.get(i)?.error;
      return e
        ? { reason: e.reason || e.code, detections: e instanceof SecurityRejectedError ? e.detections : [] }
        : undefined;
    });
  }
  return applied(req.operations, new Map([...byOp].map(([i, r]) => [i, r?.id])));
}

function applied(ops: readonly DeltaOperation[], added: Map<number, string | undefined>): DeltaOutcome {
  return {
    applied: true,
    results: ops.map((op, index) => ({
      index,
      type: op.type as 'add' | 'deprecate',
      memoryId: op.type === 'add' ? added.get(index) : op.memoryId.toLowerCase(),
      status: 'applied',
      detections: [],
    })),
  };
}

async function checkDeprecations(
  memories: MemoryLookup,
  principal: Principal,
  agentId: string,
  deprecations: readonly { index: number; dep: Deprecation }[],
): Promise<{ index: number; reason: string } | undefined> {
  if (deprecations.length === 0) return undefined;
  const reader = readerOf(principal, agentId);
  const ids = deprecations.flatMap((d) => [d.dep.memory_id, d.dep.superseded_by ?? '']).filter(isUuid);
  const rows = new Map((await memories.byIds(reader, ids)).map((m) => [m.id, m]));
  const seen = new Set<string>();
  const deprecated = new Set(deprecations.map((d) => d.dep.memory_id));
  for (const { index, dep } of deprecations) {
    const m = rows.get(dep.memory_id);
    if (!m || m.is_deprecated || seen.has(dep.memory_id)) return { index, reason: 'NOT_FOUND' };
    if (!isPrivileged(principal) && m.agent_id !== agentId) return { index, reason: 'SCOPE_FORBIDDEN' };
    // superseded_by names a live memory the agent can read that this delta does not deprecate.
    const successor = dep.superseded_by === undefined ? undefined : rows.get(dep.superseded_by);
    if (
      dep.superseded_by !== undefined &&
      (!successor || successor.is_deprecated || deprecated.has(successor.id))
    )
      return { index, reason: 'SUPERSEDED_BY_NOT_FOUND' };
    seen.add(dep.memory_id);
  }
  return undefined;
}
