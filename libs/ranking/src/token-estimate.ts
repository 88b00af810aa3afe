/**
 * The token estimate of context bundles, used both to fill the budget and to report it: one token
 * per 4 characters (Unicode code points) or per 0.75 words, whichever is larger, rounded up. This
 * matches GPT-style BPE tokenizers on English prose (about 4 characters or 0.75 words per token) and
 * over-counts rather than under-counts on code, identifiers and non-Latin scripts, so a bundle that
 * fits by this estimate fits the model's window.
 */
export function estimateTokens(text: string): number {
  if (text === '') return 0;
  let chars = 0;
  for (const _ of text) chars++;
  const words = text.split(/\s+/u).filter((w) => w !== '').length;
  return Math.max(Math.ceil(chars / 4), Math.ceil(words / 0.75));
}
