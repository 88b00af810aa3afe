/** One blocked item of a progress session. */
export interface BlockedItem {
  readonly item: string;
  readonly reason: string;
}

/** Structured session state of one agent. */
export interface ProgressSession {
  readonly sessionId: string;
  readonly agentId: string;
  readonly completed: readonly string[];
  readonly inProgress: string;
  readonly next: readonly string[];
  readonly blocked: readonly BlockedItem[];
  readonly summary: string;
  readonly updatedAt: Date;
}

/** A PATCH: absent (undefined, or an empty list) fields are left as they are. */
export interface SessionChange {
  readonly completed: readonly string[];
  readonly inProgress?: string | undefined;
  readonly next: readonly string[];
  readonly blocked: readonly BlockedItem[];
  readonly summary?: string | undefined;
}

/**
 * Applies an update: `completed` is a union (order of first completion kept); `next` and `blocked`
 * replace the lists when given; `in_progress` and `summary` replace when given. An item that is
 * completed leaves `next`, `blocked` and `in_progress`, so the session never says one item is both
 * done and pending.
 */
export function applySessionChange(
  current: ProgressSession,
  change: SessionChange,
  now: Date,
): ProgressSession {
  const completed = [...current.completed];
  for (const item of change.completed) if (!completed.includes(item)) completed.push(item);
  const done = new Set(completed);
  const next = (change.next.length > 0 ? change.next : current.next).filter((i) => !done.has(i));
  const blocked = (change.blocked.length > 0 ? change.blocked : current.blocked).filter(
    (b) => !done.has(b.item),
  );
  const inProgress = change.inProgress ?? current.inProgress;
  return {
    ...current,
    completed,
    inProgress: done.has(inProgress) ? '' : inProgress,
    next: [...new Set(next)],
    blocked,
    summary: change.summary ?? current.summary,
    updatedAt: now,
  };
}
