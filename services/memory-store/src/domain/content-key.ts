import { createHash } from 'node:crypto';

/**
 * The deduplication key of a content: Unicode NFC, trimmed, runs of white space collapsed to one
 * space; case and punctuation stay significant (docs/architecture.md, The write path).
 */
export function normalizeContent(content: string): string {
  return content.normalize('NFC').trim().replace(/\s+/gu, ' ');
}

export function contentKey(content: string): string {
  return createHash('sha256').update(normalizeContent(content), 'utf8').digest('hex');
}
