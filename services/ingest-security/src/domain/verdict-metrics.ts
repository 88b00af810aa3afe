import type { ScreenResult } from '@engram/security-rules';
import { METRICS, type EngramMetrics } from '@engram/telemetry';

/**
 * Counts one screened write: its verdict, and each detection by category, stage and the action
 * decided for it. Every label is a fixed enum of the policy; nothing of the content or the caller.
 */
export function countVerdict(metrics: EngramMetrics, screened: ScreenResult<{ content: string }>): void {
  metrics.counter(METRICS.screeningVerdicts).inc({ action: screened.action });
  const detections = metrics.counter(METRICS.screeningDetections);
  for (const d of screened.detections) {
    detections.inc({ category: d.category, stage: String(d.stage), action: d.action });
  }
}
