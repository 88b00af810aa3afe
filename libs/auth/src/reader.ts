import { isPrivileged, type Principal } from './principal.ts';

/** Who is reading: the project, the acting agent, and whether it sees the whole project. */
export interface Reader {
  readonly projectId: string;
  readonly agentId: string;
  readonly seesAll: boolean;
}

export function readerOf(principal: Principal, agentId: string): Reader {
  return { projectId: principal.projectId, agentId, seesAll: isPrivileged(principal) };
}
