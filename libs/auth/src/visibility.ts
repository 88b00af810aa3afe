import type { Knex } from 'knex';
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

/**
 * Restricts a query on the memories table to what the reader may see, inside the SQL (never after a
 * LIMIT): the project always; then global, own, or agent-shared with the reader, unless privileged.
 */
export function whereVisible<T extends Knex.QueryBuilder>(qb: T, reader: Reader, table = 'memories'): T {
  void qb.where(`${table}.project_id`, reader.projectId);
  if (!reader.seesAll) {
    void qb.where((w) => {
      void w
        .where(`${table}.scope`, 'global')
        .orWhere(`${table}.agent_id`, reader.agentId)
        .orWhere((s) => {
          void s
            .where(`${table}.scope`, 'agent-shared')
            .whereRaw(`? = any(${table}.shared_with)`, [reader.agentId]);
        });
    });
  }
  return qb;
}
