import type { Principal } from '@engram/auth';
import { InvalidArgumentError, isUuid, NotFoundError } from '@engram/errors';
import type { HandlersOf } from '@engram/grpc-kit';
import { formatOf } from '@engram/integrity';
import { toProtoMemory, type VerifiedReader } from '@engram/memories';
import type { SecurityAdminServiceService } from '@engram/proto/engram/security/v1/security';
import { ID_MAX_LENGTH, validateId } from '@engram/security-rules';
import type { ScanClient } from '../clients/scan-client.ts';
import { auditQuery } from '../domain/audit-query.ts';
import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import { pageLimit } from '../domain/page-limit.ts';
import type { SecurityReadRepository } from '../domain/ports.ts';
import { requireSecurityAdmin } from '../domain/require-admin.ts';
import type { SecurityAdminConfig } from '../config.ts';

export interface SecurityAdminDeps extends SecurityAdminConfig {
  readonly repo: SecurityReadRepository;
  readonly reader: VerifiedReader;
  readonly scanner: ScanClient;
}

/** /security/*: privileged or system principals only, every route checks it first. */
export function securityAdminHandlers(
  deps: SecurityAdminDeps,
): Partial<HandlersOf<typeof SecurityAdminServiceService, Principal>> {
  return {
    async scan(req, { principal, metadata }) {
      requireSecurityAdmin(principal);
      // The preview reports as if the scope were global: the worst-case verdict.
      const res = await deps.scanner.scan(
        { content: req.content, scope: 'global', trust_level: req.trust_level, metadata: req.metadata },
        metadata,
      );
      return { ...res };
    },

    async listAuditEvents(req, { principal }) {
      requireSecurityAdmin(principal);
      const { filter, after, limit } = auditQuery(principal.projectId, req);
      const rows = await deps.repo.auditEvents(filter, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        events: page.map((e) => ({
          event_id: e.event_id,
          event_type: e.event_type,
          project_id: e.project_id,
          agent_id: e.agent_id ?? '',
          memory_id: e.memory_id ?? undefined,
          api_key_id: e.api_key_id ?? '',
          details: e.details,
          created_at: e.created_at.toISOString(),
        })),
        next_cursor: rows.length > limit && last ? encodeCursor(last.position) : '',
      };
    },

    async listFlagged(req, { principal }) {
      requireSecurityAdmin(principal);
      const v = req.namespace ? validateId('namespace', req.namespace, ID_MAX_LENGTH) : [];
      const limit = pageLimit(req.limit, v);
      if (v.length > 0) throw new InvalidArgumentError('request failed validation', v);
      const rows = await deps.repo.flagged(
        principal.projectId,
        req.namespace || undefined,
        decodeCursor(req.cursor),
        limit + 1,
      );
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      // An admin review list: nothing is dropped, every row says whether it still verifies.
      return {
        memories: deps.reader.annotate(page.map((r) => r.memory)).map(toProtoMemory),
        next_cursor: rows.length > limit && last ? encodeCursor(last.position) : '',
      };
    },

    async verify(req, { principal }) {
      requireSecurityAdmin(principal);
      // A malformed id cannot name a memory: the same 404 as a missing one (docs/decisions.md).
      if (!isUuid(req.memory_id)) throw new NotFoundError('memory not found');
      const m = await deps.repo.memory(principal.projectId, req.memory_id.toLowerCase());
      if (!m) throw new NotFoundError('memory not found');
      const [checked] = deps.reader.annotate([m]);
      return {
        memory_id: m.id,
        has_hash: formatOf(m.integrity_hash) !== 'none',
        valid: checked?.integrity_status === 'valid',
        format: formatOf(m.integrity_hash),
      };
    },

    getConfig(_req, { principal }) {
      requireSecurityAdmin(principal);
      return Promise.resolve(deps.published);
    },
  };
}
