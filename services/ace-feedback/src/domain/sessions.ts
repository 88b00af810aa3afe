import { actingAgent, isPrivileged, type Principal } from '@engram/auth';
import { ConflictError, NotFoundError } from '@engram/errors';
import {
  LIST_ENTRY_MAX_LENGTH,
  LIST_MAX_ENTRIES,
  SESSION_ID_MAX_LENGTH,
  ID_MAX_LENGTH,
} from '@engram/security-rules';
import { FieldChecks } from './field-checks.ts';
import type { SessionRepository } from './ports.ts';
import { applySessionChange, type ProgressSession, type SessionChange } from './progress-session.ts';

export const SUMMARY_MAX_LENGTH = 10_000;

/**
 * Progress sessions belong to their agent (progress is agent-private by default): only that agent,
 * or a privileged key, reads and updates one; to anyone else it does not exist (404).
 */
function ownedSession(
  principal: Principal,
  agentId: string,
  session: ProgressSession | undefined,
): ProgressSession {
  if (!session || (!isPrivileged(principal) && session.agentId !== agentId)) {
    throw new NotFoundError('progress session not found');
  }
  return session;
}

export async function createSession(
  sessions: SessionRepository,
  principal: Principal,
  req: { sessionId: string; agentId: string },
): Promise<ProgressSession> {
  new FieldChecks()
    .id('session_id', req.sessionId, SESSION_ID_MAX_LENGTH, true)
    .id('agent_id', req.agentId, ID_MAX_LENGTH)
    .throwIfAny();
  const agentId = actingAgent(principal, req.agentId);
  const session: ProgressSession = {
    sessionId: req.sessionId,
    agentId,
    completed: [],
    inProgress: '',
    next: [],
    blocked: [],
    summary: '',
    updatedAt: new Date(),
  };
  const inserted = await sessions.insert(
    { projectId: principal.projectId, agentId, apiKeyId: principal.keyId },
    session,
  );
  if (!inserted)
    throw new ConflictError(`progress session ${req.sessionId} already exists`, 'ALREADY_EXISTS');
  return ownedSession(principal, agentId, await sessions.get(principal.projectId, req.sessionId));
}

export async function getSession(
  sessions: SessionRepository,
  principal: Principal,
  req: { sessionId: string; agentId: string },
): Promise<ProgressSession> {
  new FieldChecks()
    .id('session_id', req.sessionId, SESSION_ID_MAX_LENGTH, true)
    .id('agent_id', req.agentId, ID_MAX_LENGTH)
    .throwIfAny();
  const agentId = actingAgent(principal, req.agentId);
  return ownedSession(principal, agentId, await sessions.get(principal.projectId, req.sessionId));
}

export async function updateSession(
  sessions: SessionRepository,
  principal: Principal,
  req: { sessionId: string; agentId: string; change: SessionChange },
): Promise<ProgressSession> {
  const { change } = req;
  const checks = new FieldChecks()
    .id('session_id', req.sessionId, SESSION_ID_MAX_LENGTH, true)
    .id('agent_id', req.agentId, ID_MAX_LENGTH)
    .list('completed', change.completed, LIST_MAX_ENTRIES, LIST_ENTRY_MAX_LENGTH)
    .list('next', change.next, LIST_MAX_ENTRIES, LIST_ENTRY_MAX_LENGTH)
    .text('in_progress', change.inProgress, LIST_ENTRY_MAX_LENGTH, { lineBreaks: false })
    .text('summary', change.summary, SUMMARY_MAX_LENGTH);
  if (change.blocked.length > LIST_MAX_ENTRIES)
    checks.add('blocked', `at most ${LIST_MAX_ENTRIES} entries`, 'TOO_MANY');
  else
    change.blocked.forEach((b, i) => {
      checks
        .text(`blocked[${i}].item`, b.item, LIST_ENTRY_MAX_LENGTH, { required: true, lineBreaks: false })
        .text(`blocked[${i}].reason`, b.reason, LIST_ENTRY_MAX_LENGTH);
    });
  checks.throwIfAny();
  const agentId = actingAgent(principal, req.agentId);
  ownedSession(principal, agentId, await sessions.get(principal.projectId, req.sessionId));
  const updated = await sessions.update(principal.projectId, req.sessionId, (current) => {
    const next = applySessionChange(current, change, new Date());
    if (next.completed.length > 10 * LIST_MAX_ENTRIES) {
      throw new ConflictError(
        'a session holds at most 1000 completed items',
        'SESSION_FULL',
        'FAILED_PRECONDITION',
      );
    }
    return next;
  });
  return ownedSession(principal, agentId, updated);
}
