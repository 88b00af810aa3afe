import assert from 'node:assert/strict';
import { Metadata } from '@grpc/grpc-js';
import { CHANNEL_PROOF_HEADER, channelProof, createClient, unary } from '@engram/grpc-kit';
import { IngestServiceClient, type AddMemoryRequest } from '@engram/proto/engram/ingest/v1/ingest';
import type { WriteResult } from '@engram/proto/engram/memory/v1/memory';
import { ENGINES } from '@engram/testing';
import { provenanceOf } from './helpers.ts';
import { startTestEngram, type TestEngram } from '@engram/all-in-one/testing';

/**
 * The provenance channel (rest, mcp, grpc) cannot be forged by a direct gRPC caller: x-engram-channel
 * counts only with the gateway's proof, derived from ENGRAM_INTERNAL_TOKEN (docs/decisions.md).
 */
for (const engine of ENGINES) {
  describe(`the provenance channel cannot be forged (${engine})`, function () {
    this.timeout(60_000);
    let t: TestEngram;
    let client: IngestServiceClient;
    let n = 0;

    before(async () => {
      t = await startTestEngram(engine);
      client = createClient(IngestServiceClient, t.grpcAddress);
    });
    after(async () => {
      client?.close();
      await t?.stop();
    });

    const direct = async (headers: Record<string, string>): Promise<string> => {
      const md = new Metadata();
      md.set('authorization', `Bearer ${t.adminKey}`);
      for (const [k, v] of Object.entries(headers)) md.set(k, v);
      const res = await unary<AddMemoryRequest, WriteResult>(
        client.addMemory.bind(client),
        {
          content: `Channel check ${++n}: direct gRPC write.`,
          agent_id: 'channel',
          shared_with: [],
          metadata: undefined,
          steps: [],
          trigger_conditions: [],
        },
        md,
      );
      return res.id;
    };
    const channelOf = async (id: string) => (await provenanceOf(t, id)).channel;
    const rest = async (headers: Record<string, string> = {}) => {
      const res = await t.admin.request<{ id: string }>(
        'POST',
        '/memories/add',
        { content: `Channel check ${++n}: through the gateway.`, agent_id: 'channel' },
        headers,
      );
      assert.equal(res.status, 200, res.text);
      return res.body.id;
    };

    it('a direct gRPC caller claiming rest or mcp is recorded as grpc', async () => {
      assert.equal(await channelOf(await direct({})), 'grpc');
      assert.equal(await channelOf(await direct({ 'x-engram-channel': 'rest' })), 'grpc');
      assert.equal(await channelOf(await direct({ 'x-engram-channel': 'mcp' })), 'grpc');
      assert.equal(
        await channelOf(
          await direct({
            'x-engram-channel': 'mcp',
            [CHANNEL_PROOF_HEADER]: channelProof('a guessed token'),
          }),
        ),
        'grpc',
      );
      assert.equal(
        await channelOf(await direct({ 'x-engram-channel': 'rest', [CHANNEL_PROOF_HEADER]: 'forged' })),
        'grpc',
      );
    });

    it('the gateway’s calls keep rest, and mcp when the client declares it', async () => {
      assert.equal(await channelOf(await rest()), 'rest');
      assert.equal(await channelOf(await rest({ 'x-engram-channel': 'mcp' })), 'mcp');
      // A REST client cannot smuggle a proof header of its own either: the gateway builds the metadata.
      assert.equal(await channelOf(await rest({ [CHANNEL_PROOF_HEADER]: 'forged' })), 'rest');
      // The proof is what the gateway sends; a holder of the internal token (a service) can make it.
      const proof = channelProof(t.engram.proc.secrets.internalToken);
      assert.equal(
        await channelOf(await direct({ 'x-engram-channel': 'mcp', [CHANNEL_PROOF_HEADER]: proof })),
        'mcp',
      );
    });
  });
}
