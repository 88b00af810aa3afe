import { isLowTrust } from '@engram/memory-model';

/**
 * What the screen knows about a write besides its text, and the profile it screens it with.
 *
 * - `instructions`: an internal (or higher) agent's own procedure, control rule, strategy or
 *   reflection (the lesson it drew from its own work). Imperatives are the normal form of these
 *   memories ("skip the cache", "reply in German", "delete the temp files", "next time, do not send
 *   the logs to the vendor"), so only the strong rules apply: those that describe an attack whoever writes
 *   it (an override of earlier instructions, a jailbreak mode, a forged chat turn, the system prompt
 *   sent out). The learned signal alone never decides here.
 * - `data`: content labelled untrusted or unknown (tool output, web pages, e-mails), or written
 *   through MCP by a model that was reading such content. A request addressed to the reader inside
 *   data is what indirect injection looks like: every rule applies and the learned signal decides at
 *   its lowest threshold.
 * - `memory`: every other write (an internal agent's notes, facts, episodes, reflections): every rule
 *   applies and the learned signal decides at a threshold set for everyday memories.
 *
 * The profile only ever narrows what the learned signal and the contextual rules may say about an
 * internal agent's instructions; nothing an untrusted writer controls can move a write to a more
 * lenient profile (trust is checked first and the memory type does not matter for untrusted content).
 */
export type ScreeningProfile = 'instructions' | 'memory' | 'data';
export const SCREENING_PROFILES = [
  'instructions',
  'memory',
  'data',
] as const satisfies readonly ScreeningProfile[];

export interface WriteContext {
  /** The content trust label the write is stored with. */
  readonly trustLevel: string;
  /** The memory type (standard when absent). */
  readonly memoryType?: string | undefined;
  /** The provenance channel: rest, grpc, mcp, cli or internal. */
  readonly channel?: string | undefined;
}

const INSTRUCTION_TYPES = new Set(['procedural', 'control', 'strategy', 'reflection']);
/** Memory types a model in a tool loop stores what it read as. */
const RECORD_TYPES = new Set(['standard', 'episodic', 'semantic']);

export function screeningProfile(ctx: WriteContext): ScreeningProfile {
  if (!ctx.trustLevel || isLowTrust(ctx.trustLevel)) return 'data';
  const type = ctx.memoryType ?? 'standard';
  if (INSTRUCTION_TYPES.has(type)) return 'instructions';
  if (ctx.channel === 'mcp' && RECORD_TYPES.has(type)) return 'data';
  return 'memory';
}
