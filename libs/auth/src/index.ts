export { actingAgent, assertAgentAllowed, keyIdentity, mayAccessOwned, mayActAs } from './acting-agent.ts';
export {
  canAdmin,
  canModify,
  canRead,
  canRelabel,
  canWriteScope,
  handoffAgents,
  requireAdmin,
  requireModify,
} from './authorization.ts';
export type { AdminArea, MemoryAccessFacts, RelabelChange } from './authorization.ts';
export { callerMetadata, callerOf } from './caller.ts';
export type { Caller } from './caller.ts';
export { bearerToken, constantTimeEqual, displayPrefix, generateApiKey, hashApiKey } from './api-key.ts';
export {
  contentRank,
  isPrincipalTrust,
  isPrivileged,
  isSystem,
  PRINCIPAL_TRUST,
  principalRank,
} from './principal.ts';
export type { Principal, PrincipalTrust } from './principal.ts';
export { readerOf } from './reader.ts';
export type { Reader } from './reader.ts';
export { decideWrite } from './write-policy.ts';
export type { WriteDecision, WriteDecisionInput } from './write-policy.ts';
