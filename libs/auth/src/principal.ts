import type { TrustLevel } from '@engram/memory-model';

/**
 * Principal trust levels, the level of an API key, lowest first (docs/architecture.md,
 * Authorization). A different thing from the content trust label (TrustLevel, five labels, in
 * @engram/memory-model), but every principal level is also a label: a write naming no label gets
 * its principal's level.
 */
export const PRINCIPAL_TRUST = [
  'untrusted',
  'internal',
  'privileged',
  'system',
] as const satisfies readonly TrustLevel[];
export type PrincipalTrust = (typeof PRINCIPAL_TRUST)[number];

/** The authenticated caller of one request. */
export interface Principal {
  readonly projectId: string;
  /** api_keys.key_id, or "bootstrap" for SERVICE_API_KEY. */
  readonly keyId: string;
  readonly trust: PrincipalTrust;
  /** When set, the key acts only as this agent. */
  readonly boundAgentId?: string | undefined;
  /**
   * An unbound internal key's explicit list of the agents it may act for (api_keys.agent_ids). Empty
   * or absent: none but the key's own identity, unless anyAgent (docs/decisions.md).
   */
  readonly agentIds?: readonly string[] | undefined;
  /** An unbound internal key created with any_agent: it acts for every agent of its project. */
  readonly anyAgent?: boolean | undefined;
  /** The bootstrap key: creates projects and keys in any project. */
  readonly instanceAdmin: boolean;
}

const PRINCIPAL_RANK: Record<PrincipalTrust, number> = {
  untrusted: 0,
  internal: 1,
  privileged: 2,
  system: 3,
};
/** Content labels ranked against principal levels: untrusted and unknown content rank lowest. */
const CONTENT_RANK: Record<TrustLevel, number> = {
  untrusted: 0,
  unknown: 0,
  internal: 1,
  privileged: 2,
  system: 3,
};

export function principalRank(t: PrincipalTrust): number {
  return PRINCIPAL_RANK[t];
}

export function contentRank(t: TrustLevel): number {
  return CONTENT_RANK[t];
}

export function isPrincipalTrust(v: string): v is PrincipalTrust {
  return (PRINCIPAL_TRUST as readonly string[]).includes(v);
}

/** privileged or system: reads everything in the project, relabels, /security/*. */
export function isPrivileged(p: Principal): boolean {
  return PRINCIPAL_RANK[p.trust] >= PRINCIPAL_RANK.privileged;
}

export function isSystem(p: Principal): boolean {
  return p.trust === 'system';
}
