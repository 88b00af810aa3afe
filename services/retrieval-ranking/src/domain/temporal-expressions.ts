import {
  addDays,
  dayInterval,
  daysInMonth,
  monthInterval,
  monthsInterval,
  startOfDay,
  utcDate,
  weekInterval,
  yearInterval,
  type DateInterval,
} from './calendar.ts';

/**
 * The dates a question refers to, read from its English wording against a reference time (the
 * request's as_of): "yesterday", "last week", "last May", "in March", "in 2025", "last Tuesday",
 * "two weeks ago", "March 3", "3 March 2026", "2026-03-03", "this spring", "late June", "the week
 * before March 3". Pure: no clock of its own, no I/O.
 *
 * Expressions without a year look back: "in March" asked in February is last year's March, because
 * a memory is about something that has happened. An expression anchored on an event ("the week
 * before the trip") cannot be resolved from the question alone, and guessing would push the right
 * memories down: such a question gets no reading at all (nothing is filtered or boosted).
 */
export interface TemporalReading {
  /** The intervals the question names; a memory dated in any of them matches. */
  readonly intervals: readonly DateInterval[];
  /** The question without the expressions that dated it (collapsed whitespace). */
  readonly rest: string;
}

// prettier-ignore
const MONTH_INDEX: Record<string, number> = {
  january: 0, jan: 0, february: 1, feb: 1, march: 2, mar: 2, april: 3, apr: 3, may: 4,
  june: 5, jun: 5, july: 6, jul: 6, august: 7, aug: 7, september: 8, sept: 8, sep: 8,
  october: 9, oct: 9, november: 10, nov: 10, december: 11, dec: 11,
};
// prettier-ignore
const WEEKDAY_INDEX: Record<string, number> = {
  sunday: 0, monday: 1, tuesday: 2, wednesday: 3, thursday: 4, friday: 5, saturday: 6,
};
// prettier-ignore
const NUMBER_WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9,
  ten: 10, eleven: 11, twelve: 12, 'a couple of': 2, 'couple of': 2,
};
/** First month (0-11) of each meteorological season of the northern hemisphere, three months long. */
const SEASON_START: Record<string, number> = { spring: 2, summer: 5, autumn: 8, fall: 8, winter: 11 };
/** early, mid and late of a season: its first, second or third month. */
const PART_OFFSET: Record<string, number> = { early: 0, mid: 1, late: 2 };

const FULL_MONTH = '(january|february|march|april|may|june|july|august|september|october|november|december)';
const ANY_MONTH = `(${FULL_MONTH.slice(1, -1)}|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\\.?`;
const WEEKDAY = '(monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const NUMBER =
  '(\\d{1,3}|a couple of|couple of|an|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const YEAR = '(\\d{4})';
/** Ends a word: no letter, digit or time colon follows. */
const END = '(?![a-z0-9:])';

const re = (source: string) => new RegExp(source, 'iy');
const num = (s: string) => NUMBER_WORDS[s.toLowerCase().replace(/\s+/g, ' ')] ?? Number(s);
/** "may", "march" and "mar" in lower case are the verbs; the months are capitalised. */
const verb = (s: string) => /^(may|march|mar)\.?$/.test(s);
const month = (s: string) => MONTH_INDEX[s.toLowerCase().replace('.', '')]!;

/**
 * An interval; undefined when the text is not this expression (the next one is tried); null when it
 * is, but names no real date ("February 30", "2025-02-29"): consumed, and nothing read from it.
 */
type Resolve = (m: RegExpExecArray, asOf: Date, text: string, at: number) => DateInterval | null | undefined;

/** The most recent month (0-11) that has begun by `asOf`: this year's, or last year's. */
function recentMonthYear(m: number, asOf: Date): number {
  return m <= asOf.getUTCMonth() ? asOf.getUTCFullYear() : asOf.getUTCFullYear() - 1;
}

/** A real calendar day; with no year, the most recent one not after asOf's day (29 February too). */
function calendarDay(m: number, d: number, year: string | undefined, asOf: Date): DateInterval | null {
  if (d < 1) return null;
  if (year !== undefined) {
    const y = Number(year);
    return y >= 1 && d <= daysInMonth(y, m) ? dayInterval(utcDate(y, m, d)) : null;
  }
  const today = startOfDay(asOf);
  for (let y = asOf.getUTCFullYear(), tries = 0; tries < 9; y--, tries++) {
    if (d <= daysInMonth(y, m) && utcDate(y, m, d) <= today) return dayInterval(utcDate(y, m, d));
  }
  return null;
}

/** early: days 1-10, mid: 11-20, late: 21 to the end of the month. */
function partOfMonth(part: string, y: number, m: number): DateInterval {
  const p = part.toLowerCase();
  const [from, to] =
    p === 'early' || p.includes('start') || p.includes('beginning')
      ? [1, 11]
      : p === 'mid' || p.includes('middle')
        ? [11, 21]
        : [21, daysInMonth(y, m) + 1];
  return { start: utcDate(y, m, from), end: utcDate(y, m, to) };
}

/**
 * A season, named by the year it starts in (winter 2024 runs from December 2024 to February 2025):
 * "last" is the latest that has ended, "next" the first that has not begun, "this" the one of this
 * year (in January or February, the winter that began in December), a bare one the latest that has
 * begun. early, mid and late narrow it to its first, second or third month.
 */
function season(
  name: string,
  which: string | undefined,
  part: string | undefined,
  year: string | undefined,
  asOf: Date,
): DateInterval {
  const first = SEASON_START[name.toLowerCase()]!;
  const instance = (y: number) => monthsInterval(y, first, 3);
  const today = startOfDay(asOf);
  let y = asOf.getUTCFullYear();
  const w = which?.toLowerCase();
  if (year !== undefined) {
    y = Number(year);
  } else if (w === 'last') {
    while (instance(y).end > today) y--;
  } else if (w === 'next') {
    y -= 1;
    while (instance(y).start <= today) y++;
  } else if (w === 'this') {
    if (first === 11 && asOf.getUTCMonth() <= 1) y--;
  } else {
    while (instance(y).start > today) y--;
  }
  if (part === undefined) return instance(y);
  return monthInterval(y, first + (PART_OFFSET[part.toLowerCase()] ?? 0));
}

/**
 * A weekday (0 Sunday): "last" the latest before today, "on" the latest up to today, "this" the one
 * of this ISO week, "next" the first after today.
 */
function weekday(which: string, target: number, asOf: Date): DateInterval {
  const today = startOfDay(asOf);
  const dow = today.getUTCDay();
  const w = which.toLowerCase();
  if (w === 'next') return dayInterval(addDays(today, (target - dow + 7) % 7 || 7));
  if (w === 'this') return dayInterval(addDays(weekInterval(today).start, (target + 6) % 7));
  const back = (dow - target + 7) % 7;
  return dayInterval(addDays(today, -(w === 'last' ? back || 7 : back)));
}

function relativeUnit(unit: string, shift: number, asOf: Date): DateInterval {
  const y = asOf.getUTCFullYear();
  switch (unit.toLowerCase()) {
    case 'day':
      return dayInterval(addDays(startOfDay(asOf), shift));
    case 'week':
      return weekInterval(addDays(asOf, 7 * shift));
    case 'month':
      return monthInterval(y, asOf.getUTCMonth() + shift);
    default:
      return yearInterval(y + shift);
  }
}

const SHIFT: Record<string, number> = { last: -1, this: 0, next: 1 };

/** A capitalised word just before `at` ("Christmas 2024"), which makes a bare number a year. */
function afterCapitalisedWord(text: string, at: number): boolean {
  return /[A-Z][a-z]+\s+$/.test(text.slice(Math.max(0, at - 30), at));
}

/**
 * The expressions, tried in this order at each word start; the first that matches and resolves
 * wins, so "March 3" is a day before "March" is a month. Bare "May" and "March" must be capitalised
 * and not open a sentence (the verbs); bare years need a preposition or a capitalised word before
 * them (a price of 2000 is not a year); weekdays need last/this/next/on, and a plural
 * ("on Saturdays") is a habit, not a date.
 */
const MATCHERS: readonly { readonly re: RegExp; readonly resolve: Resolve }[] = [
  {
    re: re(`(?:on\\s+)?(\\d{4})-(\\d{2})-(\\d{2})(?![0-9])`),
    resolve: (m, asOf) => {
      const mo = Number(m[2]) - 1;
      return mo >= 0 && mo <= 11 ? calendarDay(mo, Number(m[3]), m[1], asOf) : null;
    },
  },
  {
    re: re(`(?:on\\s+)?${ANY_MONTH}\\s+${DAY}(?:,?\\s+${YEAR})?${END}`),
    resolve: (m, asOf) => (verb(m[1]!) ? undefined : calendarDay(month(m[1]!), Number(m[2]), m[3], asOf)),
  },
  {
    re: re(`(?:on\\s+)?(?:the\\s+)?${DAY}\\s+(?:of\\s+)?${ANY_MONTH}(?:,?\\s+${YEAR})?${END}`),
    resolve: (m, asOf) => (verb(m[2]!) ? undefined : calendarDay(month(m[2]!), Number(m[1]), m[3], asOf)),
  },
  {
    re: re(
      `(?:(?:in|during|at|by)\\s+)?(early|mid|late|the\\s+(?:start|beginning|middle|end)\\s+of)[\\s-]+${FULL_MONTH}(?:,?\\s+${YEAR})?${END}`,
    ),
    resolve: (m, asOf) => {
      const mo = month(m[2]!);
      return partOfMonth(m[1]!, m[3] ? Number(m[3]) : recentMonthYear(mo, asOf), mo);
    },
  },
  {
    re: re(`(last|this|next)\\s+${FULL_MONTH}${END}`),
    resolve: (m, asOf) => {
      const mo = month(m[2]!);
      const y = asOf.getUTCFullYear();
      const now = asOf.getUTCMonth();
      const w = m[1]!.toLowerCase();
      return monthInterval(
        w === 'this' ? y : w === 'last' ? (now > mo ? y : y - 1) : now < mo ? y : y + 1,
        mo,
      );
    },
  },
  {
    re: re(`(?:(?:in|during)\\s+)?${FULL_MONTH},?\\s+${YEAR}${END}`),
    resolve: (m) => monthInterval(Number(m[2]), month(m[1]!)),
  },
  {
    re: re(`(?:in|during)\\s+${FULL_MONTH}${END}`),
    resolve: (m, asOf) => monthInterval(recentMonthYear(month(m[1]!), asOf), month(m[1]!)),
  },
  {
    re: re(`${FULL_MONTH}${END}`),
    resolve: (m, asOf, text, at) => {
      const word = m[1]!;
      if (verb(word) || (/^(may|march)$/i.test(word) && /(^|[.!?]\s*)$/.test(text.slice(0, at))))
        return undefined;
      return monthInterval(recentMonthYear(month(word), asOf), month(word));
    },
  },
  {
    re: re(`(last|this|next)\\s+(week|month|year)${END}`),
    resolve: (m, asOf) => relativeUnit(m[2]!, SHIFT[m[1]!.toLowerCase()]!, asOf),
  },
  {
    re: re(`(yesterday|last\\s+night|today|tonight|tomorrow)${END}`),
    resolve: (m, asOf) => {
      const w = m[1]!.toLowerCase();
      return relativeUnit(
        'day',
        w === 'tomorrow' ? 1 : w === 'yesterday' || w.startsWith('last') ? -1 : 0,
        asOf,
      );
    },
  },
  {
    re: re(`${NUMBER}\\s+(day|week|month|year)s?\\s+ago${END}`),
    resolve: (m, asOf) => relativeUnit(m[2]!, -num(m[1]!), asOf),
  },
  {
    re: re(`(last|this|next|on)\\s+${WEEKDAY}${END}`),
    resolve: (m, asOf) => weekday(m[1]!, WEEKDAY_INDEX[m[2]!.toLowerCase()]!, asOf),
  },
  {
    re: re(
      `(?:((?:in|during)\\s+(?:the\\s+)?|the\\s+)|(last|this|next)\\s+)?(?:(early|mid|late)[\\s-]+)?(spring|summer|autumn|fall|winter)(?:\\s+(?:of\\s+)?${YEAR})?${END}`,
    ),
    resolve: (m, asOf) => {
      if (m[4]!.toLowerCase() === 'fall' && !m[1] && !m[2] && !m[3]) return undefined; // the verb
      return season(m[4]!, m[2], m[3], m[5], asOf);
    },
  },
  {
    re: re(`(?:(in|during)\\s+)?((?:19|20)\\d{2})(?![0-9a-z:-])`),
    resolve: (m, _asOf, text, at) =>
      m[1] !== undefined || afterCapitalisedWord(text, at) ? yearInterval(Number(m[2])) : undefined,
  },
];

/** "the week before", "two days after", "a month before": a span next to the expression that follows. */
const RELATIVE = re(`(the|${NUMBER.slice(1, -1)})\\s+(day|week|month|year)s?\\s+(before|after)\\s+`);

/** The expression starting at `at`: its end, and its interval (null when it names no real date). */
function readAt(
  text: string,
  at: number,
  asOf: Date,
): { end: number; interval: DateInterval | null } | undefined {
  for (const { re: pattern, resolve } of MATCHERS) {
    pattern.lastIndex = at;
    const m = pattern.exec(text);
    if (!m) continue;
    const interval = resolve(m, asOf, text, at);
    if (interval !== undefined) return { end: at + m[0].length, interval };
  }
  return undefined;
}

/** The span of `count` units before `anchor` starts, or after it ends. */
function around(anchor: DateInterval, unit: string, count: number, after: boolean): DateInterval {
  const step = (d: Date, n: number) => {
    const u = unit.toLowerCase();
    if (u === 'day' || u === 'week') return addDays(d, n * (u === 'week' ? 7 : 1));
    const months = u === 'month' ? n : 12 * n;
    return utcDate(d.getUTCFullYear(), d.getUTCMonth() + months, d.getUTCDate());
  };
  return after
    ? { start: anchor.end, end: step(anchor.end, count) }
    : { start: step(anchor.start, -count), end: anchor.start };
}

const isWordChar = (c: string | undefined) => c !== undefined && /[a-z0-9]/i.test(c);

/**
 * Reads the dates of `text` against `asOf`, or undefined when it names none, or names one relative
 * to something that is not a date ("two weeks before the trip").
 */
export function readTemporal(text: string, asOf: Date): TemporalReading | undefined {
  const intervals: DateInterval[] = [];
  const spans: [number, number][] = [];
  for (let at = 0; at < text.length; at++) {
    if (!isWordChar(text[at]) || isWordChar(text[at - 1])) continue;
    RELATIVE.lastIndex = at;
    const rel = RELATIVE.exec(text);
    if (rel) {
      const inner = readAt(text, at + rel[0].length, asOf);
      if (!inner?.interval) return undefined; // anchored on an event: not resolvable, and not guessed
      const count = rel[1]!.toLowerCase() === 'the' ? 1 : num(rel[1]!);
      intervals.push(around(inner.interval, rel[2]!, count, rel[3]!.toLowerCase() === 'after'));
      spans.push([at, inner.end]);
      at = inner.end - 1;
      continue;
    }
    const hit = readAt(text, at, asOf);
    if (!hit) continue;
    if (hit.interval) {
      intervals.push(hit.interval);
      spans.push([at, hit.end]);
    }
    at = hit.end - 1;
  }
  if (intervals.length === 0) return undefined;
  let rest = '';
  let from = 0;
  for (const [s, e] of spans) {
    rest += text.slice(from, s) + ' ';
    from = e;
  }
  rest = (rest + text.slice(from)).replace(/\s+/g, ' ').trim();
  return { intervals, rest };
}
