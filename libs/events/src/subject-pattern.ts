/**
 * NATS subject matching for the in-process bus: tokens separated by `.`, `*` matches one token, `>`
 * (last token only) matches one or more tokens.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    const token = p[i];
    if (token === '>') return s.length > i;
    if (i >= s.length) return false;
    if (token !== '*' && token !== s[i]) return false;
  }
  return p.length === s.length;
}

/** Throws RangeError for an empty token, or `>` anywhere but last. */
export function checkSubjectPattern(pattern: string): void {
  const tokens = pattern.split('.');
  tokens.forEach((t, i) => {
    if (t.length === 0 || /\s/.test(t)) throw new RangeError(`invalid subject pattern "${pattern}"`);
    if (t === '>' && i !== tokens.length - 1)
      throw new RangeError(`">" must be the last token in "${pattern}"`);
  });
}
