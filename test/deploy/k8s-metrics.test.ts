import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The scrape wiring of deploy/k8s is consistent: every gRPC service exposes a `metrics` port equal to
 * ENGRAM_METRICS_PORT of the ConfigMap, and each ServiceMonitor selects Services that have its port.
 * (No cluster here: this checks the manifests against each other, not against an API server.)
 */

// js-yaml comes with mocha (and eslint), which run these tests; it ships no types of its own.
const yaml = createRequire(import.meta.url)('js-yaml') as { loadAll(text: string): unknown[] };

interface Port {
  name?: string;
  port?: number;
  containerPort?: number;
  targetPort?: string | number;
}
interface Resource {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  resources?: string[];
  spec?: {
    ports?: Port[];
    selector?: { matchLabels?: Record<string, string> };
    endpoints?: { port: string; path?: string }[];
    template?: { spec: { containers: { name: string; ports?: Port[] }[] } };
  };
}

const dir = new URL('../../deploy/k8s/', import.meta.url);
const load = (file: string) =>
  (yaml.loadAll(readFileSync(new URL(file, dir), 'utf8')) as (Resource | null)[]).filter(
    (r): r is Resource => r !== null,
  );

const kustomization = load('kustomization.yaml')[0]!;
const all = (kustomization.resources ?? []).flatMap(load);
const of = (kind: string) => all.filter((r) => r.kind === kind);
const GRPC_SERVICES = [
  'ingest-security',
  'memory-store',
  'retrieval-ranking',
  'ace-feedback',
  'security-admin',
];

const matches = (labels: Record<string, string> | undefined, selector: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

describe('deploy/k8s metrics scraping', () => {
  it('lists servicemonitor.yaml in the kustomization', () => {
    assert.ok(kustomization.resources?.includes('servicemonitor.yaml'));
  });

  it('gives every gRPC service a metrics port equal to ENGRAM_METRICS_PORT, in the pod and the Service', () => {
    const config = of('ConfigMap').find((c) => c.metadata.name === 'engram-config')!;
    const port = Number(config.data?.ENGRAM_METRICS_PORT);
    assert.ok(port > 0, 'ENGRAM_METRICS_PORT is set in the ConfigMap');
    for (const name of GRPC_SERVICES) {
      const deployment = of('Deployment').find((d) => d.metadata.name === name)!;
      const container = deployment.spec!.template!.spec.containers[0]!;
      assert.equal(container.ports?.find((p) => p.name === 'metrics')?.containerPort, port, name);
      const service = of('Service').find((s) => s.metadata.name === name)!;
      const exposed = service.spec?.ports?.find((p) => p.name === 'metrics');
      assert.deepEqual([exposed?.port, exposed?.targetPort], [port, 'metrics'], name);
    }
  });

  it('has ServiceMonitors whose selectors find the six Services, each with the port scraped', () => {
    const monitors = of('ServiceMonitor');
    const scraped = new Set<string>();
    for (const m of monitors) {
      const selected = of('Service').filter((s) =>
        matches(s.metadata.labels, m.spec!.selector!.matchLabels!),
      );
      assert.ok(selected.length > 0, `${m.metadata.name} selects no Service`);
      for (const s of selected) {
        for (const e of m.spec!.endpoints!) {
          assert.ok(
            s.spec?.ports?.some((p) => p.name === e.port),
            `${s.metadata.name} has no port ${e.port}`,
          );
          assert.equal(e.path, '/metrics');
        }
        scraped.add(s.metadata.name);
      }
    }
    assert.deepEqual([...scraped].sort(), [...GRPC_SERVICES, 'gateway'].sort());
  });
});
