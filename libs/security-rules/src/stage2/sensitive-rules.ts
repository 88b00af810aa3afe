import type { Rule } from '../rule-scanner.ts';
import { luhnValid } from './luhn.ts';
import { looksLikeSecretValue } from './secret-values.ts';

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isWordChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);

/** Not glued to more digits or dashes (so a part of a longer number or id never matches). */
function standalone(text: string, start: number, end: number): boolean {
  const before = text[start - 1];
  const after = text[end];
  return !isDigit(before) && before !== '-' && !isDigit(after) && after !== '-';
}

/** Digit sequences of 13-19 digits (single spaces or dashes allowed between) that pass Luhn. */
function acceptCard(text: string, start: number, end: number) {
  if (!standalone(text, start, end) || isWordChar(text[start - 1]) || isWordChar(text[end])) return undefined;
  const raw = text.slice(start, end);
  const digits = raw.replace(/[ -]/g, '');
  if (digits.length < 13 || digits.length > 19) return undefined;
  // Issuer ranges start with 2-6 (Mastercard 2-series, Amex/Diners/JCB 3, Visa 4, 5, Discover 6):
  // this keeps epoch milliseconds, order numbers starting with 1, 7, 8, 9 and zero-padded ids out.
  if (!/^[2-6]/.test(digits)) return undefined;
  // One separator style throughout: "4111 1111 1111 1111" or "4111-1111-...", not "4111 1111-1111".
  if (raw.includes(' ') && raw.includes('-')) return undefined;
  if (/^(\d)\1+$/.test(digits)) return undefined;
  return luhnValid(digits) ? { start, end } : undefined;
}

function acceptSsn(text: string, start: number, end: number) {
  if (!standalone(text, start, end)) return undefined;
  const [area, group, serial] = text.slice(start, end).split('-');
  if (area === '000' || area === '666' || area?.startsWith('9')) return undefined;
  if (group === '00' || serial === '0000') return undefined;
  return { start, end };
}

/** For "key <op> value" matches: narrows the span to the value when it looks like a secret. */
function acceptAssignment(text: string, start: number, end: number) {
  const m = /^([\s\S]*?(?:[:=]|=>)\s*)(["'`]?)([\s\S]*)$/.exec(text.slice(start, end));
  if (!m) return undefined;
  const prefix = m[1] ?? '';
  const quote = m[2] ?? '';
  let value = m[3] ?? '';
  if (quote !== '' && value.endsWith(quote)) value = value.slice(0, -1);
  const op = prefix.trimEnd().slice(-1);
  const ok = looksLikeSecretValue(value, {
    quoted: quote !== '',
    assignedWithEquals: op === '=' || prefix.includes('=>'),
  });
  if (!ok) return undefined;
  const valueStart = start + prefix.length + quote.length;
  return { start: valueStart, end: valueStart + value.length };
}

/** user:password@ in a URL: narrows to the password. */
function acceptUrlCredentials(text: string, start: number, end: number) {
  const s = text.slice(start, end);
  const colon = s.lastIndexOf(':');
  const at = s.lastIndexOf('@');
  if (colon < 0 || at < colon) return undefined;
  const value = s.slice(colon + 1, at);
  if (!looksLikeSecretValue(value, { quoted: true, assignedWithEquals: true })) return undefined;
  return { start: start + colon + 1, end: start + at };
}

/**
 * Stage 2: sensitive data. Every pattern is RE2 syntax (linear time). Provider token formats follow
 * the providers' documented prefixes (the formats secret scanners such as GitHub's look for).
 */
export const SENSITIVE_RULES: readonly Rule[] = [
  { category: 'pii', type: 'ssn', pattern: String.raw`\b\d{3}-\d{2}-\d{4}\b`, accept: acceptSsn },
  {
    category: 'pii',
    type: 'email',
    pattern: String.raw`\b[A-Za-z0-9][A-Za-z0-9._%+-]*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b`,
  },
  {
    category: 'secrets',
    type: 'payment_card',
    pattern: String.raw`\b\d(?:[ -]?\d){12,}\b`,
    accept: acceptCard,
  },
  // Cloud and SaaS tokens by documented prefix (case-sensitive: the prefixes are).
  ...(
    [
      String.raw`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b`, // AWS access key ids
      String.raw`\bsk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\d{2}-)?[A-Za-z0-9_-]{20,}`, // OpenAI, Anthropic
      String.raw`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b`, // GitHub tokens
      String.raw`\bgithub_pat_[A-Za-z0-9_]{22,255}\b`, // GitHub fine-grained
      String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`, // Slack
      String.raw`https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+`, // Slack webhook
      String.raw`\bglpat-[A-Za-z0-9_-]{20,}`, // GitLab
      String.raw`\bAIza[0-9A-Za-z_-]{35}\b`, // Google API key
      String.raw`\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}`, // Stripe secret / restricted
      String.raw`\bwhsec_[A-Za-z0-9]{24,}`, // Stripe webhook secret
      String.raw`\bnpm_[A-Za-z0-9]{36}\b`, // npm
      String.raw`\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`, // PyPI
      String.raw`\bhf_[A-Za-z0-9]{34,}\b`, // Hugging Face
      String.raw`\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b`, // SendGrid
      String.raw`\bdop_v1_[a-f0-9]{64}\b`, // DigitalOcean
      String.raw`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`, // Shopify
      String.raw`\bAccountKey=[A-Za-z0-9+/]{80,}={0,2}`, // Azure storage
      String.raw`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, // JWT
      // PEM private key blocks (the whole block when it is complete, else the header).
      String.raw`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s:,.-]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?`,
    ] as const
  ).map((pattern): Rule => ({ category: 'secrets', type: 'api_key', pattern, caseSensitive: true })),
  // Assignments: password=..., "secret": "...", pwd: ..., API_KEY=..., api_key => '...'.
  {
    category: 'secrets',
    type: 'password',
    pattern:
      String.raw`["']?\b(?:[A-Za-z0-9]+[_.-])*(?:password|passwd|passphrase|pwd|secret|client[_-]?secret)["']?\s*(?:=>|[:=])\s*(?:"[^"\n]+"|'[^'\n]+'|` +
      '`[^`\\n]+`' +
      String.raw`|[^\s"'\x60,;{}()\[\]<>]+)`,
    accept: acceptAssignment,
  },
  {
    category: 'secrets',
    type: 'api_key',
    pattern: String.raw`["']?\b(?:[A-Za-z0-9]+[_.-])*(?:api[_-]?key|apikey|access[_-]?key|private[_-]?key|secret[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|bearer[_-]?token)["']?\s*(?:=>|[:=])\s*(?:"[^"\n]+"|'[^'\n]+'|[^\s"'\x60,;{}()\[\]<>]+)`,
    accept: acceptAssignment,
  },
  {
    category: 'secrets',
    type: 'api_key',
    pattern: String.raw`\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*`,
    caseSensitive: true,
  },
  {
    category: 'secrets',
    type: 'password',
    pattern: String.raw`\b[a-z][a-z0-9+.-]+://[^\s:/@]+:[^\s@/]+@`,
    accept: acceptUrlCredentials,
  },
];
