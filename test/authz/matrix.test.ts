import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createFileRegistry, fromBinary, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import type { Client } from '@grpc/grpc-js';
import { RouteTable, type Route } from '@engram/gateway';
import { readDescriptorSet } from '@engram/proto/descriptor';
import { callGrpc, callRest, genericClient, type Answer } from './callers.ts';
import { buildWorld, keyLabel, targetKey, type AuthzWorld, type OwnedKind } from './fixture.ts';
import {
  columnLabel,
  columnsOf,
  DEFAULT_SETTINGS,
  expectedStatus,
  isWriteRoute,
  LEVELS,
  principalLabel,
  PRINCIPALS,
  ROUTE_KINDS,
  TRUST_LEVELS_ON,
  type Column,
  type MatrixSettings,
  type Level,
  type RouteKind,
  type Target,
} from './matrix-spec.ts';
import { renderMatrix } from './render-matrix.ts';
import { REQUESTS } from './requests.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

const registry: FileRegistry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readDescriptorSet()));
const routes: readonly Route[] = RouteTable.fromRegistry(registry).routes;

/** Which memories may the acting agent (alice, or bob when the cell names bob) see? docs/architecture.md, Authorization. */
function visibleTo(agent: 'alice' | 'bob', level: Level, t: Target): boolean {
  if (t.project === 'other') return false;
  if (LEVELS.indexOf(level) >= LEVELS.indexOf('privileged') || t.scope === 'global') return true;
  if (agent === 'alice') return t.author === 'self' || t.scope === 'agent-shared';
  return t.author === 'other';
}

/** The kind of object an owned route reads or changes. */
function ownedKindOf(route: Route): OwnedKind {
  const method = route.grpcPath.slice(route.grpcPath.lastIndexOf('/') + 1);
  return method.endsWith('Session') ? 'session' : method.endsWith('Run') ? 'run' : 'feature';
}

const fixedTargets = (w: AuthzWorld): [Target, string][] =>
  [...w.targets.entries()].map(([k, id]) => {
    const [project, author, scope] = k.split('/') as [Target['project'], Target['author'], Target['scope']];
    return [{ project, author, scope }, id];
  });

/** Runs the cells of `selected` routes under `settings` on a suite started with `env`. */
function defineMatrix(
  title: string,
  env: Record<string, string>,
  settings: MatrixSettings,
  selected: readonly Route[],
  checkTable: boolean,
): void {
  describe(title, function () {
    this.timeout(600_000);
    let t: TestEngram;
    let world: AuthzWorld;
    let grpc: Client;
    const pending = new Set<string>();

    before(async () => {
      t = await startTestEngram('postgres', {
        RATE_LIMIT_PROJECT_PER_MINUTE: '1000000',
        RATE_LIMIT_AGENT_PER_MINUTE: '1000000',
        ...env,
      });
      world = await buildWorld(t);
      grpc = genericClient(t.grpcAddress);
    });
    after(async () => {
      grpc?.close();
      await t?.stop();
      if (pending.size > 0) {
        process.stdout.write(
          `      authz matrix: answering 501 after authentication (401 without a key): ${[...pending].sort().join(', ')}\n`,
        );
      }
    });

    if (checkTable) {
      it('knows every REST route of proto/ (a new route needs its row in matrix-spec.ts and requests.ts)', () => {
        const unknown = routes.filter((r) => ROUTE_KINDS[r.grpcPath] === undefined || !REQUESTS[r.grpcPath]);
        assert.deepEqual(
          unknown.map((r) => `${r.httpMethod} ${r.pattern}`),
          [],
        );
        assert.ok(routes.length >= 40, `${routes.length} routes`);
      });

      it('test/authz/matrix.md is the table this test runs (regenerate: node --import tsx test/authz/render-matrix.ts)', () => {
        const md = readFileSync(new URL('./matrix.md', import.meta.url), 'utf8');
        assert.equal(md, renderMatrix(routes));
      });
    }

    for (const channel of ['rest', 'grpc'] as const) {
      for (const route of selected) {
        const kind: RouteKind | undefined = ROUTE_KINDS[route.grpcPath];
        if (kind === undefined) continue;
        it(`${channel}: ${route.httpMethod} ${route.pattern}`, async () => {
          const call = (fields: Record<string, unknown>, key: string | undefined): Promise<Answer> =>
            channel === 'rest'
              ? callRest(t.baseUrl, route, fields, key)
              : callGrpc(grpc, registry, route, fields, key);
          const build = REQUESTS[route.grpcPath]!;

          const memoryIdFor = async (column: Column, fresh: boolean): Promise<string> => {
            if (column.kind === 'target') {
              return fresh ? world.freshTarget(column.target) : world.targets.get(targetKey(column.target))!;
            }
            const project = column.kind === 'project' ? column.project : 'same';
            return world.targets.get(targetKey({ project, author: 'other', scope: 'global' }))!;
          };
          const fieldsFor = async (column: Column, fresh: boolean) => {
            const named = column.kind === 'named' || column.kind === 'write' ? column.named : 'self';
            return build({
              column,
              memoryId: await memoryIdFor(column, fresh),
              agent: named === 'self' ? 'alice' : 'bob',
              fresh: randomBytes(6).toString('hex'),
              projectId: world.projectId,
              otherProjectId: world.otherProjectId,
              owned: column.kind === 'owner' ? await world.freshOwned(ownedKindOf(route), column.owner) : '',
              keyToRevoke:
                kind === 'admin-key'
                  ? await world.keyToRevoke(column.kind === 'project' ? column.project : 'same')
                  : '',
            });
          };

          // A route still without (all of) its handler answers 501 to a system key: then every cell
          // without a valid key must be 401 (authentication first), and every other cell either 501 or
          // the refusal the rules expect (a partial handler may check authorization before its 501).
          const columns = columnsOf(kind);
          const probe = await call(
            await fieldsFor(columns[0]!, kind === 'memory-modify'),
            world.keys.get('system unbound'),
          );
          const isPending = probe.status === 501;
          if (isPending) pending.add(`${route.httpMethod} ${route.pattern}`);

          const failures: string[] = [];
          for (const principal of PRINCIPALS) {
            for (const column of principal.kind === 'key' ? columns : columns.slice(0, 1)) {
              const rule = expectedStatus(kind, principal, column, settings);
              const expected = isPending && rule === 200 ? 501 : rule;
              const mutates = kind === 'memory-modify' && !isPending;
              const fields = await fieldsFor(column, mutates);
              const key = principal.kind === 'none' ? undefined : world.keys.get(keyLabel(principal));
              const answer = await call(fields, key);
              const where = `${principalLabel(principal)} | ${columnLabel(column)}`;
              const accepted =
                answer.status === expected || (isPending && rule !== 401 && answer.status === 501);
              if (!accepted) {
                failures.push(
                  `${where}: expected ${expected}, got ${answer.status} ${answer.reason ?? ''} ${answer.text.slice(0, 160)}`,
                );
                continue;
              }
              if (answer.status !== 200) continue;
              // Isolation: nothing of the other project, ever; and for reads, nothing the actor may not see.
              for (const id of world.otherProjectIds) {
                if (answer.text.includes(id))
                  failures.push(`${where}: answer reveals memory ${id} of another project`);
              }
              if (kind === 'agent-read' && !route.grpcPath.endsWith('/Handoff') && principal.kind === 'key') {
                const actor = column.kind === 'named' && column.named === 'other' ? 'bob' : 'alice';
                for (const [target, id] of fixedTargets(world)) {
                  if (answer.text.includes(id) && !visibleTo(actor, principal.level, target)) {
                    failures.push(
                      `${where}: answer reveals ${targetKey(target)} (${id}), invisible to ${actor}`,
                    );
                  }
                }
              }
            }
          }
          assert.deepEqual(
            failures,
            [],
            `${failures.length} cells differ from the rules of docs/architecture.md:\n${failures.join('\n')}`,
          );
        });
      }
    }
  });
}

defineMatrix(
  'authorization matrix: every route x principal x binding x target (docs/architecture.md, Authorization)',
  {},
  DEFAULT_SETTINGS,
  routes,
  true,
);
defineMatrix(
  'authorization matrix of the writes with ENABLE_TRUST_LEVELS=true',
  { ENABLE_TRUST_LEVELS: 'true' },
  TRUST_LEVELS_ON,
  routes.filter(isWriteRoute),
  false,
);
