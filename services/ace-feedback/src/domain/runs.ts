import { actingAgent, mayAccessOwned, readerOf, type Caller, type Principal } from '@engram/auth';
import { ConflictError, InvalidArgumentError, isUuid, NotFoundError } from '@engram/errors';
import type { WriteRequest } from '@engram/memory-model';
import { ERROR_PATTERN_MAX_LENGTH, ID_MAX_LENGTH, LIST_MAX_ENTRIES } from '@engram/security-rules';
import { FieldChecks } from './field-checks.ts';
import { screenFreeText, type FreeTextDeps } from './free-text-screen.ts';
import { pipelineError } from './pipeline-errors.ts';
import type { MemoryLookup, RunRepository, WritePipeline } from './ports.ts';
import { voteForOutcome, type Run } from './run-status.ts';

/** At most this many serialized bytes of evaluation are kept with a run. */
export const EVALUATION_MAX_BYTES = 16 * 1024;
const REFLECTION_ERROR_MAX_LENGTH = 10_000;

export interface RunDeps extends FreeTextDeps {
  readonly runs: RunRepository;
  readonly memories: MemoryLookup;
  readonly pipeline: WritePipeline;
}

export interface StartRunRequest {
  readonly runId: string;
  readonly agentId: string;
  readonly taskType: string;
  readonly memoryIdsUsed: readonly string[];
}

/**
 * Starts tracking a run. The acting agent must be able to read every used memory: an id it cannot
 * read (or that does not exist) is refused with 404 naming the list position, and nothing is stored.
 */
export async function startRun(deps: RunDeps, principal: Principal, req: StartRunRequest): Promise<Run> {
  const checks = new FieldChecks()
    .id('run_id', req.runId, ID_MAX_LENGTH, true)
    .id('agent_id', req.agentId, ID_MAX_LENGTH)
    .id('task_type', req.taskType, ID_MAX_LENGTH, true);
  if (req.memoryIdsUsed.length > LIST_MAX_ENTRIES)
    checks.add('memory_ids_used', `at most ${LIST_MAX_ENTRIES} ids`, 'TOO_MANY');
  checks.throwIfAny();
  const agentId = actingAgent(principal, req.agentId);
  const used = [...new Set(req.memoryIdsUsed.map((id) => id.toLowerCase()))];
  const visible = await deps.memories.visibleIds(
    readerOf(principal, agentId),
    used.filter((id) => isUuid(id)),
  );
  const missing = used.findIndex((id) => !visible.has(id));
  if (missing >= 0) {
    throw new NotFoundError(`memory_ids_used[${missing}]: memory not found (or not readable by ${agentId})`);
  }
  const actor = { projectId: principal.projectId, agentId, apiKeyId: principal.keyId };
  const inserted = await deps.runs.insert(actor, {
    runId: req.runId,
    agentId,
    taskType: req.taskType,
    memoryIdsUsed: used,
  });
  if (!inserted) throw new ConflictError(`run ${req.runId} already exists`, 'ALREADY_EXISTS');
  const run = await deps.runs.get(principal.projectId, req.runId);
  if (!run) throw new NotFoundError('run not found');
  return run;
}

/**
 * A run of the project whose agent the key may act as (or any run, for a privileged key); anything
 * else is 404, as if it did not exist: its memory ids and evaluation are its agent's.
 */
export async function getRun(
  deps: { runs: RunRepository },
  principal: Principal,
  runId: string,
): Promise<Run> {
  new FieldChecks().id('run_id', runId, ID_MAX_LENGTH, true).throwIfAny();
  const run = await deps.runs.get(principal.projectId, runId);
  if (!run || !mayAccessOwned(principal, run.agentId)) throw new NotFoundError('run not found');
  return run;
}

function stringField(evaluation: Record<string, unknown>, key: string): string | undefined {
  const v = evaluation[key];
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/**
 * The namespace of a failed run's reflection: where the memories it used live, so the lesson sits
 * next to what it is about (a run has no namespace of its own). When they live in several, the one
 * most of them share; on a tie, the namespace of the first listed. A run that used no memory the
 * agent can still read reflects into the default namespace (undefined).
 */
export function reflectionNamespace(
  usedIds: readonly string[],
  namespaceOfId: ReadonlyMap<string, string>,
): string | undefined {
  const counts = new Map<string, number>();
  for (const id of usedIds) {
    const ns = namespaceOfId.get(id);
    if (ns !== undefined) counts.set(ns, (counts.get(ns) ?? 0) + 1);
  }
  let best: string | undefined;
  let bestCount = 0;
  // Map iteration follows first appearance in usedIds, so a strict > keeps the first listed on a tie.
  for (const [ns, n] of counts) {
    if (n > bestCount) [best, bestCount] = [ns, n];
  }
  return best;
}

/** The reflection a failed run leaves behind: the lesson is the evaluation's error and error_pattern. */
function reflectionOf(
  run: Run,
  evaluation: Record<string, unknown>,
  namespace: string | undefined,
): WriteRequest {
  const error = stringField(evaluation, 'error');
  const pattern = stringField(evaluation, 'error_pattern');
  const content =
    error ??
    (pattern !== undefined
      ? `Run of task ${run.taskType} failed with error pattern: ${pattern}`
      : `Run of task ${run.taskType} failed without a recorded error`);
  return {
    content,
    agent_id: run.agentId,
    memory_type: 'reflection',
    namespace,
    shared_with: [],
    metadata: { run_id: run.runId, task_type: run.taskType, memory_ids_used: [...run.memoryIdsUsed] },
    steps: [],
    trigger_conditions: [],
    error_pattern: pattern,
    source_trajectory_id: run.runId,
  };
}

/**
 * Completes a started run: a helpful (success) or harmful (failure) vote by the run's agent on every
 * used memory, task_id = run_id; on failure first a reflection memory through the write pipeline
 * (kind run_reflection, depth 1 + the deepest used memory, source run = the run, in the namespace of
 * the used memories: reflectionNamespace). The state change and the votes commit together in one
 * conditional update, so a second completion is 409 and never votes twice. Only a key that may act
 * as the run's agent completes it (a run the key cannot see is 404, getRun); the evaluation is
 * screened like a memory's content before anything is written.
 */
export async function completeRun(
  deps: RunDeps,
  principal: Principal,
  caller: Caller,
  req: { runId: string; success: boolean; evaluation: Record<string, unknown> | undefined },
): Promise<Run> {
  const run = await getRun(deps, principal, req.runId);
  // Completing votes as the run's agent: a privileged key bound to another agent sees the run but
  // may not act as its agent (403 AGENT_MISMATCH); every other key got here only if it may.
  const agentId = actingAgent(principal, run.agentId, 'agent_id');
  const raw = req.evaluation ?? {};
  if (Buffer.byteLength(JSON.stringify(raw), 'utf8') > EVALUATION_MAX_BYTES) {
    throw new InvalidArgumentError('request failed validation', [
      {
        field: 'evaluation',
        description: `at most ${EVALUATION_MAX_BYTES} bytes of JSON`,
        reason: 'TOO_LONG',
      },
    ]);
  }
  new FieldChecks()
    .text('evaluation.error', stringField(raw, 'error'), REFLECTION_ERROR_MAX_LENGTH)
    .text('evaluation.error_pattern', stringField(raw, 'error_pattern'), ERROR_PATTERN_MAX_LENGTH)
    .throwIfAny();
  if (run.status !== 'started') throw alreadyCompleted(run.runId);
  const actor = { projectId: principal.projectId, agentId, apiKeyId: principal.keyId };
  const { evaluation } = await screenFreeText(deps, principal, actor, 'complete_run', { evaluation: raw });

  let reflectionId: string | null = null;
  if (!req.success) {
    const [deepest, used] = await Promise.all([
      deps.memories.deepestProvenance(principal.projectId, run.memoryIdsUsed),
      deps.memories.byIds(readerOf(principal, agentId), run.memoryIdsUsed),
    ]);
    const namespace = reflectionNamespace(run.memoryIdsUsed, new Map(used.map((m) => [m.id, m.namespace])));
    const res = await deps.pipeline.ingest(
      {
        items: [reflectionOf(run, evaluation, namespace)],
        kind: 'run_reflection',
        source_run_id: run.runId,
        depth: run.memoryIdsUsed.length === 0 ? 0 : 1 + (deepest ?? 0),
        atomic: true,
        deprecations: [],
      },
      caller,
    );
    const [result] = res.results;
    if (result?.error) throw pipelineError(result.error, 'evaluation.');
    if (!res.applied || result?.id === undefined) throw new Error('the write pipeline stored no reflection');
    reflectionId = result.id;
  }
  const completed = await deps.runs.complete(actor, {
    runId: run.runId,
    success: req.success,
    evaluation,
    reflectionId,
    vote: voteForOutcome(req.success),
  });
  if (!completed) throw alreadyCompleted(run.runId);
  return completed;
}

function alreadyCompleted(runId: string): ConflictError {
  return new ConflictError(
    `run ${runId} is already completed`,
    'RUN_ALREADY_COMPLETED',
    'FAILED_PRECONDITION',
  );
}
