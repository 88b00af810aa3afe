import type { Database } from '@engram/db';
import type { Feature, FeatureStatus, NewFeature } from '../domain/feature-status.ts';
import type { Actor, FeatureOwners, FeatureRepository } from '../domain/ports.ts';

interface FeatureRow {
  feature_id: string;
  agent_id: string;
  description: string;
  test_steps: string[] | null;
  status: FeatureStatus;
  failure_reason: string | null;
  verified_by: string | null;
  updated_at: Date | string;
}

function featureFromRow(r: FeatureRow): Feature {
  return {
    featureId: r.feature_id,
    agentId: r.agent_id,
    description: r.description,
    testSteps: r.test_steps ?? [],
    status: r.status,
    failureReason: r.failure_reason,
    verifiedBy: r.verified_by,
    updatedAt: new Date(r.updated_at),
  };
}

export class KnexFeatureRepository implements FeatureRepository {
  constructor(private readonly db: Database) {}

  async insert(actor: Actor, f: NewFeature): Promise<boolean> {
    const res: { rows: unknown[] } = await this.db.knex.raw(
      `insert into features (project_id, feature_id, agent_id, description, test_steps, api_key_id)
       values (?, ?, ?, ?, ?::text[], ?) on conflict (project_id, feature_id) do nothing returning feature_id`,
      [actor.projectId, f.featureId, f.agentId, f.description, [...f.testSteps], actor.apiKeyId],
    );
    return res.rows.length > 0;
  }

  async get(projectId: string, featureId: string): Promise<Feature | undefined> {
    const row = (await this.db
      .knex('features')
      .where({ project_id: projectId, feature_id: featureId })
      .first()) as FeatureRow | undefined;
    return row ? featureFromRow(row) : undefined;
  }

  async transition(
    actor: Actor,
    featureId: string,
    from: readonly string[],
    to: Pick<Feature, 'status' | 'failureReason' | 'verifiedBy'>,
  ): Promise<Feature | undefined> {
    const [row] = (await this.db
      .knex('features')
      .where({ project_id: actor.projectId, feature_id: featureId })
      .whereIn('status', [...from])
      .update({
        status: to.status,
        failure_reason: to.failureReason,
        verified_by: to.verifiedBy,
        api_key_id: actor.apiKeyId,
        updated_at: this.db.knex.fn.now(),
      })
      .returning('*')) as FeatureRow[];
    return row ? featureFromRow(row) : undefined;
  }

  async list(
    projectId: string,
    owners: FeatureOwners,
    status: string | undefined,
    afterId: string | undefined,
    limit: number,
  ): Promise<Feature[]> {
    const qb = this.db.knex('features').where('project_id', projectId);
    if (owners !== 'all') void qb.whereIn('agent_id', [...owners.agents]);
    if (status !== undefined) void qb.where('status', status);
    if (afterId !== undefined) void qb.where('feature_id', '>', afterId);
    const rows = (await qb.orderBy('feature_id').limit(limit)) as FeatureRow[];
    return rows.map(featureFromRow);
  }
}
