import assert from 'node:assert/strict';
import { readTemporal } from '../src/domain/temporal-expressions.ts';

/** Friday 15 May 2026, noon UTC. */
const FRI = '2026-05-15T12:00:00Z';

/** The intervals read from `text` asked at `asOf`, as [first day, last day] in ISO dates. */
function days(text: string, asOf: string = FRI): [string, string][] | undefined {
  const r = readTemporal(text, new Date(asOf));
  return r?.intervals.map((i) => [
    i.start.toISOString().slice(0, 10),
    new Date(i.end.getTime() - 1).toISOString().slice(0, 10),
  ]);
}

describe('readTemporal: dates in a question, resolved against as_of', () => {
  it('reads yesterday, today, tomorrow', () => {
    assert.deepEqual(days('what did I do yesterday?'), [['2026-05-14', '2026-05-14']]);
    assert.deepEqual(days('Today I learned'), [['2026-05-15', '2026-05-15']]);
    assert.deepEqual(days('plans for tomorrow'), [['2026-05-16', '2026-05-16']]);
  });

  it('reads last/this/next week (Monday to Sunday), month and year', () => {
    assert.deepEqual(days('last week'), [['2026-05-04', '2026-05-10']]);
    assert.deepEqual(days('this week'), [['2026-05-11', '2026-05-17']]);
    assert.deepEqual(days('next week'), [['2026-05-18', '2026-05-24']]);
    assert.deepEqual(days('last month'), [['2026-04-01', '2026-04-30']]);
    assert.deepEqual(days('this month'), [['2026-05-01', '2026-05-31']]);
    assert.deepEqual(days('next month'), [['2026-06-01', '2026-06-30']]);
    assert.deepEqual(days('last year'), [['2025-01-01', '2025-12-31']]);
    assert.deepEqual(days('next year'), [['2027-01-01', '2027-12-31']]);
  });

  it('crosses month and year boundaries', () => {
    const newYear = '2026-01-01T00:30:00Z'; // a Thursday
    assert.deepEqual(days('yesterday', newYear), [['2025-12-31', '2025-12-31']]);
    assert.deepEqual(days('last month', newYear), [['2025-12-01', '2025-12-31']]);
    assert.deepEqual(days('last week', newYear), [['2025-12-22', '2025-12-28']]);
    assert.deepEqual(days('this week', newYear), [['2025-12-29', '2026-01-04']]);
    assert.deepEqual(days('3 days ago', '2026-03-02T08:00:00Z'), [['2026-02-27', '2026-02-27']]);
    assert.deepEqual(days('3 days ago', '2024-03-02T08:00:00Z'), [['2024-02-28', '2024-02-28']]);
  });

  it('takes the UTC day of an as_of with an offset', () => {
    // 01:00 on 1 January at +02:00 is still 31 December in UTC.
    assert.deepEqual(days('today', '2026-01-01T01:00:00+02:00'), [['2025-12-31', '2025-12-31']]);
  });

  it('reads "last May" as the May before this one when asked in May, this year\'s when asked in June', () => {
    assert.deepEqual(days('what did I do last May', '2026-05-15T00:00:00Z'), [['2025-05-01', '2025-05-31']]);
    assert.deepEqual(days('what did I do last May', '2026-06-02T00:00:00Z'), [['2026-05-01', '2026-05-31']]);
    assert.deepEqual(days('last May', '2026-04-30T00:00:00Z'), [['2025-05-01', '2025-05-31']]);
    assert.deepEqual(days('this May'), [['2026-05-01', '2026-05-31']]);
    assert.deepEqual(days('next May'), [['2027-05-01', '2027-05-31']]);
    assert.deepEqual(days('next May', '2026-03-01T00:00:00Z'), [['2026-05-01', '2026-05-31']]);
  });

  it('reads "in March" and a bare month as the most recent one that has begun', () => {
    assert.deepEqual(days('what happened in March'), [['2026-03-01', '2026-03-31']]);
    assert.deepEqual(days('what happened in March', '2026-02-10T00:00:00Z'), [['2025-03-01', '2025-03-31']]);
    assert.deepEqual(days('in May'), [['2026-05-01', '2026-05-31']]);
    assert.deepEqual(days('the September dinner', '2025-10-15T00:00:00Z'), [['2025-09-01', '2025-09-30']]);
    assert.deepEqual(days('in March 2024'), [['2024-03-01', '2024-03-31']]);
    assert.deepEqual(days('December 2023'), [['2023-12-01', '2023-12-31']]);
  });

  it('reads early, mid and late months, and February ends on the 28th or 29th', () => {
    assert.deepEqual(days('as of late June', '2025-11-01T00:00:00Z'), [['2025-06-21', '2025-06-30']]);
    assert.deepEqual(days('mid-May', '2024-11-01T00:00:00Z'), [['2024-05-11', '2024-05-20']]);
    assert.deepEqual(days('early January'), [['2026-01-01', '2026-01-10']]);
    assert.deepEqual(days('at the end of February', '2024-07-01T00:00:00Z'), [['2024-02-21', '2024-02-29']]);
    assert.deepEqual(days('at the end of February', '2025-07-01T00:00:00Z'), [['2025-02-21', '2025-02-28']]);
  });

  it('reads years', () => {
    assert.deepEqual(days('in 2025'), [['2025-01-01', '2025-12-31']]);
    assert.deepEqual(days('closed over Christmas 2024'), [['2024-01-01', '2024-12-31']]);
    assert.equal(days('We spent 2000 on the kitchen'), undefined, 'a price is not a year');
  });

  it('reads weekdays with last, this, next or on', () => {
    assert.deepEqual(days('last Tuesday'), [['2026-05-12', '2026-05-12']]);
    assert.deepEqual(days('last Tuesday', '2026-05-12T09:00:00Z'), [['2026-05-05', '2026-05-05']]);
    assert.deepEqual(days('last Friday'), [['2026-05-08', '2026-05-08']]);
    assert.deepEqual(days('on Friday'), [['2026-05-15', '2026-05-15']]);
    assert.deepEqual(days('this Tuesday'), [['2026-05-12', '2026-05-12']]);
    assert.deepEqual(days('next Tuesday'), [['2026-05-19', '2026-05-19']]);
    assert.deepEqual(days('last Sunday', '2026-01-01T00:00:00Z'), [['2025-12-28', '2025-12-28']]);
  });

  it('reads "N days/weeks/months/years ago" in calendar units', () => {
    assert.deepEqual(days('3 days ago'), [['2026-05-12', '2026-05-12']]);
    assert.deepEqual(days('two weeks ago'), [['2026-04-27', '2026-05-03']]);
    assert.deepEqual(days('a couple of weeks ago'), [['2026-04-27', '2026-05-03']]);
    assert.deepEqual(days('a month ago'), [['2026-04-01', '2026-04-30']]);
    assert.deepEqual(days('five months ago'), [['2025-12-01', '2025-12-31']]);
    assert.deepEqual(days('one year ago'), [['2025-01-01', '2025-12-31']]);
  });

  it('reads explicit dates, without a year the most recent one', () => {
    const march3 = [['2026-03-03', '2026-03-03']];
    assert.deepEqual(days('on March 3'), march3);
    assert.deepEqual(days('March 3rd, 2026'), march3);
    assert.deepEqual(days('3 March 2026'), march3);
    assert.deepEqual(days('the 3rd of March'), march3);
    assert.deepEqual(days('on 2026-03-03'), march3);
    assert.deepEqual(days('Mar. 3'), march3);
    assert.deepEqual(days('March 3', '2026-03-02T23:59:59Z'), [['2025-03-03', '2025-03-03']]);
    assert.deepEqual(days('March 3', '2026-03-03T00:00:00Z'), march3);
  });

  it('knows leap years: 29 February is the last one that existed, and 2025-02-29 is no date', () => {
    assert.deepEqual(days('February 29'), [['2024-02-29', '2024-02-29']]);
    assert.deepEqual(days('February 29', '2028-03-01T00:00:00Z'), [['2028-02-29', '2028-02-29']]);
    assert.deepEqual(days('29 Feb 2024'), [['2024-02-29', '2024-02-29']]);
    assert.deepEqual(days('2000-02-29'), [['2000-02-29', '2000-02-29']]);
    assert.equal(days('on 2025-02-29'), undefined);
    assert.equal(days('February 29, 2025'), undefined, 'not read as February, nor as 2025');
    assert.equal(days('1900-02-29'), undefined);
    assert.equal(days('April 31'), undefined);
  });

  it('reads seasons (northern meteorological: spring from March, winter from December)', () => {
    const nov = '2024-11-01T00:00:00Z';
    assert.deepEqual(days('this spring', nov), [['2024-03-01', '2024-05-31']]);
    assert.deepEqual(days('in spring', nov), [['2024-03-01', '2024-05-31']]);
    assert.deepEqual(days('in late summer', nov), [['2024-08-01', '2024-08-31']]);
    assert.deepEqual(days('last summer', '2025-07-15T00:00:00Z'), [['2024-06-01', '2024-08-31']]);
    assert.deepEqual(days('last summer', '2025-09-01T00:00:00Z'), [['2025-06-01', '2025-08-31']]);
    assert.deepEqual(days('in winter', '2025-01-10T00:00:00Z'), [['2024-12-01', '2025-02-28']]);
    assert.deepEqual(days('next winter', '2025-01-10T00:00:00Z'), [['2025-12-01', '2026-02-28']]);
    assert.deepEqual(days('last fall', nov), [['2023-09-01', '2023-11-30']]);
    assert.equal(days('did the vase fall over?'), undefined);
  });

  it('reads the span before or after a date expression', () => {
    assert.deepEqual(days('the week before March 10'), [['2026-03-03', '2026-03-09']]);
    assert.deepEqual(days('the week after March 10'), [['2026-03-11', '2026-03-17']]);
    assert.deepEqual(days('two days after last Tuesday'), [['2026-05-13', '2026-05-14']]);
    assert.deepEqual(days('the day before yesterday'), [['2026-05-13', '2026-05-13']]);
    assert.deepEqual(days('the month before last May'), [['2025-04-01', '2025-04-30']]);
  });

  it('leaves anything anchored on an event unresolved, whatever else the question says', () => {
    assert.equal(readTemporal('two weeks before the trip', new Date(FRI)), undefined);
    assert.equal(readTemporal('the week before the trip last May', new Date(FRI)), undefined);
    assert.equal(readTemporal('the day after the launch', new Date(FRI)), undefined);
    assert.equal(readTemporal('than the year before?', new Date(FRI)), undefined);
  });

  it('reads nothing in questions without dates, and leaves the verbs and habits alone', () => {
    for (const q of [
      'What does E4711 mean?',
      'On what date did Theo sit his last exam?',
      "What is Maya's married last name?",
      'Which day of the week is the bakery shut?',
      'May I ask what the venue costs?',
      'You may want to march on',
      'When did the bakery first trade at the Saturday market?',
      'Is it open on Saturdays?',
      'the year before',
      'one of 2000 guests',
    ])
      assert.equal(readTemporal(q, new Date(FRI)), undefined, q);
  });

  it('returns the question without the words that dated it, and every interval it names', () => {
    const r = readTemporal('What did I do last May?', new Date(FRI));
    assert.equal(r?.rest, 'What did I do ?');
    assert.deepEqual(
      days(
        'How did the guest count change between late June and the caterer deadline in September?',
        '2025-11-01T00:00:00Z',
      ),
      [
        ['2025-06-21', '2025-06-30'],
        ['2025-09-01', '2025-09-30'],
      ],
    );
  });
});
