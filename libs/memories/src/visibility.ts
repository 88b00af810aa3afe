import type { Knex } from 'knex';
import type { Reader } from '@engram/auth';

/**
 * Restricts a query on the memories table to what the reader may see, inside the SQL (never after a
 * LIMIT): the project always; then global, own, or agent-shared with the reader, unless privileged.
 * The SQL form of canRead (@engram/auth), for every read of memories (memory-store's included).
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

/**
 * The rows a search ranks: live (not deprecated) memories of the namespace that have an embedding.
 * Vector, lexical, playbook and similarity reads all start from them.
 */
export function whereSearchable<T extends Knex.QueryBuilder>(
  qb: T,
  namespace: string,
  table = 'memories',
): T {
  void qb
    .where(`${table}.namespace`, namespace)
    .where(`${table}.is_deprecated`, false)
    .whereNotNull(`${table}.embedding`);
  return qb;
}
