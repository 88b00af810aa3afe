/**
 * The embedding stand-in as a process of its own, so that a bench counts its CPU apart from the
 * load generator's: prints `listening <base url>` and serves until terminated.
 *   node --import tsx --conditions=engram-source scripts/bench/vectors/standin-server.ts [port]
 */
import { EmbeddingStandIn } from '@engram/testing';

const server = await EmbeddingStandIn.start({ port: Number(process.argv[2] ?? 0) });
process.stdout.write(`listening ${server.baseUrl}\n`);
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
