// The daily summary's time of day (UTC) and its text when the Control has little to say.
import { describe, expect, it } from '@jest/globals';
import { DailySchedule, dailySummary, nextDailyAtMs } from '../../../../src/ops/notify/daily.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { FakeControl } from './fake-control.js';

describe('nextDailyAtMs', () => {
  it('is the next time the UTC clock reads HH:MM, strictly after now', () => {
    const day = Date.UTC(2024, 1, 28);
    expect(nextDailyAtMs(day, '00:00')).toBe(day + 86_400_000);
    expect(nextDailyAtMs(day - 1, '00:00')).toBe(day);
    expect(nextDailyAtMs(day + 5 * 3_600_000, '07:30')).toBe(day + 7.5 * 3_600_000);
    expect(nextDailyAtMs(day + 8 * 3_600_000, '07:30')).toBe(Date.UTC(2024, 1, 29, 7, 30));
    // Across a month end in a leap year.
    expect(nextDailyAtMs(Date.UTC(2024, 1, 29, 23, 59), '23:59')).toBe(Date.UTC(2024, 2, 1, 23, 59));
    expect(() => nextDailyAtMs(day, '7:30')).toThrow(RangeError);
  });
});

describe('DailySchedule', () => {
  it('fires once a day at its time, through the clock, until stopped', () => {
    const clock = new ManualClock(Date.UTC(2024, 0, 1, 12));
    const fired: number[] = [];
    const schedule = new DailySchedule('06:15', clock, () => fired.push(clock.now()));
    schedule.start();
    expect(schedule.nextAtMs).toBe(Date.UTC(2024, 0, 2, 6, 15));
    clock.set(Date.UTC(2024, 0, 4, 12));
    expect(fired).toEqual([Date.UTC(2024, 0, 2, 6, 15), Date.UTC(2024, 0, 3, 6, 15), Date.UTC(2024, 0, 4, 6, 15)]);
    schedule.stop();
    clock.set(Date.UTC(2024, 0, 6, 12));
    expect(fired).toHaveLength(3);
  });
});

describe('dailySummary', () => {
  it('says when there are no samples and no fills; a read that fails leaves the rest said', () => {
    const control = new FakeControl();
    control.strategyList = [];
    expect(dailySummary(control, Date.UTC(2024, 0, 1)).split('\n')).toEqual([
      'Daily summary 2024-01-01 00:00 UTC (the last 24 h)',
      'Trading: active',
      'Equity: no samples',
      'Fills: 0',
    ]);
    control.fills = () => {
      throw new Error('journal closed');
    };
    expect(
      dailySummary(control, Date.UTC(2024, 0, 1))
        .split('\n')
        .slice(-1),
    ).toEqual(['(incomplete: journal closed)']);
  });
});
