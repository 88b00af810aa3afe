/** engram keys revoke <key_id>: the key stops working within 5 s on every instance (the key cache). */
import { expectPositionals, HELP, JSON_OPTION, parseCommand } from '../../args.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, withConnection } from '../../connection.ts';
import { emit } from '../../output.ts';
import { AdminServiceClient } from '@engram/proto/engram/admin/v1/admin';

export const USAGE = `usage: engram keys revoke <key_id> [--json]
  Revokes a key; it stops working within 5 s on every instance.
options:
  --json   the revoked key as JSON
${CONNECTION_USAGE}`;

export async function run(args: string[]): Promise<void> {
  const parsed = parseCommand(USAGE, {
    args,
    allowPositionals: true,
    options: { ...CONNECTION_OPTIONS, ...JSON_OPTION, ...HELP },
  });
  if (!parsed) return;
  const { values, positionals } = parsed;
  expectPositionals(positionals, USAGE, 1);
  await withConnection(values, USAGE, async (conn) => {
    const client = conn.client(AdminServiceClient);
    const k = await conn.unary(client.revokeKey.bind(client), { key_id: positionals[0]! });
    emit(values.json, k, `revoked ${k.key_id} at ${k.revoked_at ?? ''}`);
  });
}
