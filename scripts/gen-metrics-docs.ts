/** Prints docs/metrics.md from the metrics catalogue (make docs; CI checks it is current). */
import { renderMetricsDoc } from '@engram/telemetry';

process.stdout.write(renderMetricsDoc());
