/**
 * English minimal stemming (the plural-folding S-stemmer of Harman 1991, as in Lucene's
 * EnglishMinimalStemFilter): policies -> policy, failures -> failure, payments -> payment; status,
 * class, goes and shoes are left alone. Only lowercase ASCII words of 4+ letters are touched, so
 * identifiers, numbers and other languages pass through unchanged. Deliberately minimal: it never
 * merges words that differ in meaning beyond number.
 */
export function minimalStem(word: string): string {
  const n = word.length;
  if (n < 4 || word.charCodeAt(n - 1) !== 0x73 /* s */) return word;
  for (let i = 0; i < n; i++) {
    const c = word.charCodeAt(i);
    if (c < 0x61 || c > 0x7a) return word;
  }
  const beforeS = word.charAt(n - 2);
  if (beforeS === 'u' || beforeS === 's') return word;
  if (beforeS === 'e') {
    const third = word.charAt(n - 3);
    const fourth = word.charAt(n - 4);
    if (third === 'i' && fourth !== 'a' && fourth !== 'e') return `${word.slice(0, n - 3)}y`;
    if (third === 'i' || third === 'a' || third === 'o' || third === 'e') return word;
  }
  return word.slice(0, n - 1);
}
