import { actingAgent, isPrivileged, mayAccessOwned, type Principal } from '@engram/auth';
import { ConflictError, NotFoundError } from '@engram/errors';
import {
  LIST_ENTRY_MAX_LENGTH,
  LIST_MAX_ENTRIES,
  SESSION_ID_MAX_LENGTH,
  ID_MAX_LENGTH,
} from '@engram/security-rules';
import { FieldChecks } from './field-checks.ts';
import { screenFreeText, type FreeTextDeps } from './free-text-screen.ts';
import type { SessionRepository } from './ports.ts';
import { applySessionChange, type ProgressSession, type SessionChange } from './progress-session.ts';

export const SUMMARY_MAX_LENGTH = 10_000;

export interface SessionDeps extends FreeTextDeps {
  readonly sessions: SessionRepository;
}

/**
 * Progress sessions belong to their agent (progress is agent-private by default): only that agent,
 * or a privileged key, reads and updates one; to anyone else it does not exist (404). A request that
 * names an agent acts as it (the key must be allowed to: actingAgent), and must name the owner; one
 * that names none needs a key that may act as the owner (mayAccessOwned).
 */
function ownedSession(
  principal: Principal,
  named: string | undefined,
  session: ProgressSession | undefined,
): ProgressSession {
  const allowed =
    session !== undefined &&
    (named === undefined
      ? mayAccessOwned(principal, session.agentId)
      : isPrivileged(principal) || session.agentId === named);
  if (!allowed) throw new NotFoundError('progress session not found');
  return session;
}

/** The agent a session request names (checked against the key), undefined when it names none. */
function namedAgent(principal: Principal, agentId: string): string | undefined {
  return agentId === '' ? undefined : actingAgent(principal, agentId);
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
  const named = namedAgent(principal, req.agentId);
  return ownedSession(principal, named, await sessions.get(principal.projectId, req.sessionId));
}

/**
 * Applies a change to a session the request may access; every text of the change is screened like a
 * memory's content first (a reject is 422 SECURITY_REJECTED and nothing changes).
 */
export async function updateSession(
  deps: SessionDeps,
  principal: Principal,
  req: { sessionId: string; agentId: string; change: SessionChange },
): Promise<ProgressSession> {
  const { sessions } = deps;
  const checks = new FieldChecks()
    .id('session_id', req.sessionId, SESSION_ID_MAX_LENGTH, true)
    .id('agent_id', req.agentId, ID_MAX_LENGTH)
    .list('completed', req.change.completed, LIST_MAX_ENTRIES, LIST_ENTRY_MAX_LENGTH)
    .list('next', req.change.next, LIST_MAX_ENTRIES, LIST_ENTRY_MAX_LENGTH)
    .text('in_progress', req.change.inProgress, LIST_ENTRY_MAX_LENGTH, { lineBreaks: false })
    .text('summary', req.change.summary, SUMMARY_MAX_LENGTH);
  if (req.change.blocked.length > LIST_MAX_ENTRIES)
    checks.add('blocked', `at most ${LIST_MAX_ENTRIES} entries`, 'TOO_MANY');
  else
    req.change.blocked.forEach((b, i) => {
      checks
        .text(`blocked[${i}].item`, b.item, LIST_ENTRY_MAX_LENGTH, { required: true, lineBreaks: false })
        .text(`blocked[${i}].reason`, b.reason, LIST_ENTRY_MAX_LENGTH);
    });
  checks.throwIfAny();
  const named = namedAgent(principal, req.agentId);
  const owned = ownedSession(principal, named, await sessions.get(principal.projectId, req.sessionId));
  const screened = await screenFreeText(
    deps,
    principal,
    { projectId: principal.projectId, agentId: owned.agentId, apiKeyId: principal.keyId },
    'update_session',
    {
      completed: [...req.change.completed],
      in_progress: req.change.inProgress ?? '',
      next: [...req.change.next],
      blocked: req.change.blocked.map((b) => ({ item: b.item, reason: b.reason })),
      summary: req.change.summary ?? '',
    },
  );
  const change: SessionChange = {
    completed: screened.completed,
    inProgress: req.change.inProgress === undefined ? undefined : screened.in_progress,
    next: screened.next,
    blocked: screened.blocked,
    summary: req.change.summary === undefined ? undefined : screened.summary,
  };
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
  return ownedSession(principal, named, updated);
}
