/**
 * Whether the value of a password-like assignment looks like a real secret rather than prose,
 * a placeholder or an already redacted value. Keeps "password: must be rotated" and
 * "password=<your password>" out while catching "password=hunter2" and `"secret": "s3cr3t"`.
 */
const PLACEHOLDER =
  /^(?:\*+|x{3,}|\.{3,}|-+|null|none|nil|undefined|true|false|empty|required|optional|redacted|hidden|masked|changeme|change_me|example|placeholder|password|passwd|secret|string|value|todo|tbd|n\/a|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{\{[^}]*\}\}|<[^>]*>|%[A-Za-z_]+%|your[_-].*|my[_-].*)$/i;

function strip(value: string): string {
  let v = value.trim();
  if (v.length >= 2) {
    const q = v[0];
    if ((q === '"' || q === "'" || q === '`') && v.endsWith(q)) v = v.slice(1, -1);
  }
  return v;
}

export function looksLikeSecretValue(
  raw: string,
  opts: { quoted: boolean; assignedWithEquals: boolean },
): boolean {
  const value = strip(raw);
  if (value.length < 4 || value.length > 512) return false;
  if (value.startsWith('[REDACTED:')) return false;
  if (PLACEHOLDER.test(value)) return false;
  if (/\n/.test(value) || (!opts.quoted && /\s/.test(value))) return false;
  if (opts.quoted || opts.assignedWithEquals) return true;
  // "key: value" in prose or YAML: only values that do not read like a word.
  const hasDigit = /\d/.test(value);
  const hasSymbol = /[^A-Za-z0-9]/.test(value);
  const mixedCase = /[a-z]/.test(value) && /[A-Z]/.test(value) && !/^[A-Z][a-z]+$/.test(value);
  return value.length >= 6 && (hasDigit || hasSymbol || mixedCase);
}

/** Key names that hold a secret: password, passwd, pwd, secret, api_key, token, private_key, ... */
export const SECRET_KEY_NAME =
  /^(?:[A-Za-z0-9]+[_.-])*(?:password|passwd|passphrase|pwd|pass|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|bearer[_-]?token|token|credentials?)$/i;

/** The type a secret-named key reports: key/token names are api_key, the rest password. */
export function secretTypeOfKey(key: string): 'api_key' | 'password' {
  return /(?:key|token)$/i.test(key) ? 'api_key' : 'password';
}
