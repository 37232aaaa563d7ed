// Cron instants in virtual time: the next firing found field by field agrees with node-cron's own matcher
// checked second by second.
import { describe, expect, it } from '@jest/globals';
import { createTask, parse } from 'node-cron';
import { cronInstants, cronProblem } from '../../../src/app/cron.js';

/** Every minute from `afterMs` on, each of the expression's seconds, through node-cron's matcher. */
function bruteNext(expression: string, afterMs: number, limitDays: number): number | null {
  const task = createTask(expression, () => undefined, { timezone: 'UTC' });
  const seconds = [...parse(expression).second].sort((a, b) => a - b);
  for (let minute = Math.floor(afterMs / 60_000) * 60_000; minute < afterMs + limitDays * 86_400_000; minute += 60_000) {
    for (const s of seconds) {
      const t = minute + s * 1000;
      if (t > afterMs && task.match(new Date(t))) return t;
    }
  }
  return null;
}

describe('cronInstants', () => {
  const cases: Array<[string, string, number]> = [
    ['*/5 * * * * *', '2026-01-01T23:59:50Z', 1],
    ['0 5 0 * * *', '2026-01-01T00:05:00Z', 2],
    ['0 0 * * 1', '2026-01-01T00:00:00Z', 8],
    ['30 59 23 * * *', '2026-01-01T23:59:31Z', 2],
    ['0 */15 9-10 * * *', '2026-01-01T10:50:00Z', 2],
    ['15,45 * 3 * * *', '2026-03-01T02:59:59Z', 2],
    ['0 0 12 1 * *', '2026-01-31T12:00:00Z', 32],
    ['0 30 * * * 0,6', '2026-01-02T23:45:00Z', 3],
  ];
  it.each(cases)("%s after %s: the same instants as a scan with node-cron's matcher", (expression, from, days) => {
    const next = cronInstants(expression);
    let t = Date.parse(from);
    for (let k = 0; k < 3; k++) {
      const got = next(t);
      const want = bruteNext(expression, t, days);
      expect(got).toBe(want);
      t = got!;
    }
  });

  it('a date that comes rarely is found years ahead; an invalid expression is refused', () => {
    expect(new Date(cronInstants('0 0 0 29 2 *')(Date.parse('2026-03-01T00:00:00Z'))!).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(() => cronInstants('61 * * * * *')).toThrow(/invalid cron expression/);
  });
});

describe('cronProblem', () => {
  it('takes what node-cron schedules (5 fields, or 6 with seconds; names, nicknames) and says why it refuses the rest', () => {
    for (const ok of ['*/5 * * * * *', '0 0 9 * * *', '0 9 * * MON-FRI', '@daily']) expect(cronProblem(ok)).toBeUndefined();
    expect(cronProblem('*/5 * * *')).toBe(
      'invalid cron expression "*/5 * * *": expected 5 or 6 fields but got 4 (fields: [second] minute hour day-of-month month day-of-week)',
    );
    expect(cronProblem('0 0 25 * * *')).toMatch(/^invalid cron expression "0 0 25 \* \* \*": 25 is an invalid expression for hour /);
    expect(cronProblem('0 0 31 2 *')).toMatch(/31 2 is an impossible day of month/);
    expect(cronProblem('every day')).toMatch(/expected 5 or 6 fields but got 2/);
  });
});
