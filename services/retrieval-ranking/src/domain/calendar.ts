/**
 * UTC calendar arithmetic for the temporal reading of questions. Every interval is half-open,
 * [start, end), in UTC calendar days: a question carries no time zone, and an as_of's offset only
 * moves the instant, so "yesterday" is the UTC day before the as_of's UTC day.
 */

/** A half-open interval of instants, [start, end). */
export interface DateInterval {
  readonly start: Date;
  readonly end: Date;
}

const DAY_MS = 86_400_000;

/** Midnight UTC of year/month(0-11)/day; overflowing months and days roll over, years stay literal. */
export function utcDate(year: number, month: number, day: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day); // Date.UTC would read years below 100 as 19xx
  return d;
}

export function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * DAY_MS);
}

/** Midnight UTC of the day holding `at`. */
export function startOfDay(at: Date): Date {
  return utcDate(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
}

export function dayInterval(day: Date): DateInterval {
  return { start: day, end: addDays(day, 1) };
}

/** The ISO week (Monday to Sunday) holding `day`. */
export function weekInterval(day: Date): DateInterval {
  const start = addDays(startOfDay(day), -((day.getUTCDay() + 6) % 7));
  return { start, end: addDays(start, 7) };
}

/** A calendar month; `month` may overflow either way (-1 is December of the year before). */
export function monthInterval(year: number, month: number): DateInterval {
  return { start: utcDate(year, month, 1), end: utcDate(year, month + 1, 1) };
}

/** Several calendar months from `month` on (seasons). */
export function monthsInterval(year: number, month: number, count: number): DateInterval {
  return { start: utcDate(year, month, 1), end: utcDate(year, month + count, 1) };
}

export function yearInterval(year: number): DateInterval {
  return { start: utcDate(year, 0, 1), end: utcDate(year + 1, 0, 1) };
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in month (0-11) of year. */
export function daysInMonth(year: number, month: number): number {
  if (month === 1) return isLeapYear(year) ? 29 : 28;
  return [3, 5, 8, 10].includes(month) ? 30 : 31;
}
