import { contentRank, type Principal } from '@engram/auth';
import { InvalidArgumentError } from '@engram/errors';
import type { CallContext } from '@engram/grpc-kit';
import { isScope, isTrustLevel, type Scope } from '@engram/memory-model';
import type { ScanContentRequest, ScanContentResponse } from '@engram/proto/engram/ingest/v1/ingest';
import { assertValidWrite, redact, screenContent } from '@engram/security-rules';
import type { PipelineSettings } from '../domain/write-pipeline.ts';

/**
 * IngestService.ScanContent (security-admin's POST /security/scan): the verdict the pipeline would
 * give, as if the memory entered global scope unless the request names another scope, with the
 * caller's trust as the content label unless it names a lower one. Stores nothing, records nothing.
 * redacted_content is the content with EVERY stage-2/3 finding replaced by `[REDACTED:<type>]`
 * (whatever the configured action), so the preview never echoes a secret back.
 */
export async function scanContentHandler(
  settings: PipelineSettings,
  req: ScanContentRequest,
  ctx: CallContext<Principal>,
): Promise<ScanContentResponse> {
  const scope: Scope = req.scope === undefined || req.scope === '' ? 'global' : (req.scope as Scope);
  assertValidWrite(
    {
      content: req.content,
      agent_id: 'scan',
      scope: req.scope,
      trust_level: req.trust_level,
      metadata: req.metadata,
    },
    settings.limits,
  );
  if (!isScope(scope)) throw new InvalidArgumentError('unknown scope');
  let trustLevel: string = ctx.principal.trust;
  if (req.trust_level !== undefined && req.trust_level !== '') {
    if (!isTrustLevel(req.trust_level)) throw new InvalidArgumentError('unknown trust_level');
    if (contentRank(req.trust_level) < contentRank(ctx.principal.trust)) trustLevel = req.trust_level;
  }
  const screened = await screenContent(
    { content: req.content, metadata: req.metadata },
    { scope, trustLevel },
    {
      policy: settings.policy,
      classifier: settings.classifier,
      classifierThreshold: settings.classifierThreshold,
      classifierEscalation: settings.classifierEscalation,
      signal: ctx.signal,
    },
  );
  const spans = screened.detections
    .filter((d) => d.field === 'content' && d.start !== undefined && d.end !== undefined)
    .map((d) => ({ start: d.start ?? 0, end: d.end ?? 0, type: d.type }));
  return {
    action: screened.action,
    allowed: screened.action !== 'reject',
    detections: screened.detections.map((d) => ({
      category: d.category,
      type: d.type,
      action: d.action,
      stage: d.stage,
      ...(d.field === 'content' && d.start !== undefined ? { start: d.start, end: d.end } : {}),
    })),
    content_flags: [...screened.contentFlags],
    redacted_content: redact(req.content, spans),
    policy_version: settings.policyVersion,
  };
}
