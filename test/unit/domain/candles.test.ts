// Where a time falls in its bar (epoch-aligned; weeks from Monday 00:00 UTC) and which bars are made of which.
import { describe, expect, it } from '@jest/globals';
import { TIMEFRAMES, TIMEFRAME_MS, barOpenMs, isMadeOf, isTimeframe } from '../../../src/domain/candles.js';

describe('candles', () => {
  it('bars open on multiples of their length from the epoch; days at 00:00 UTC, weeks on Monday 00:00 UTC', () => {
    const t = Date.UTC(2026, 0, 7, 13, 47, 12, 345); // Wednesday
    expect(barOpenMs(t, '1m')).toBe(Date.UTC(2026, 0, 7, 13, 47));
    expect(barOpenMs(t, '15m')).toBe(Date.UTC(2026, 0, 7, 13, 45));
    expect(barOpenMs(t, '4h')).toBe(Date.UTC(2026, 0, 7, 12));
    expect(barOpenMs(t, '8h')).toBe(Date.UTC(2026, 0, 7, 8));
    expect(barOpenMs(t, '1d')).toBe(Date.UTC(2026, 0, 7));
    expect(barOpenMs(t, '1w')).toBe(Date.UTC(2026, 0, 5)); // Monday
    expect(new Date(barOpenMs(t, '1w')).getUTCDay()).toBe(1);
    // The bar's own open is its open; the last ms of a week is in it, the next ms starts the next one.
    const monday = Date.UTC(2026, 0, 12);
    expect(barOpenMs(monday, '1w')).toBe(monday);
    expect(barOpenMs(monday - 1, '1w')).toBe(Date.UTC(2026, 0, 5));
    // Before the epoch too.
    expect(barOpenMs(-1, '1h')).toBe(-3_600_000);
  });

  it('which timeframes are made whole of which', () => {
    expect(isMadeOf('2h', '1h')).toBe(true);
    expect(isMadeOf('1w', '1d')).toBe(true);
    expect(isMadeOf('1w', '8h')).toBe(true);
    expect(isMadeOf('1d', '1d')).toBe(true);
    expect(isMadeOf('12h', '8h')).toBe(false);
    expect(isMadeOf('1h', '2h')).toBe(false);
    for (const tf of TIMEFRAMES) expect(isMadeOf(tf, '1m')).toBe(true);
  });

  it('timeframes are known by name, each with its length', () => {
    expect(isTimeframe('4h')).toBe(true);
    expect(isTimeframe('1M')).toBe(false);
    expect(isTimeframe('toString')).toBe(false);
    expect(TIMEFRAME_MS['1w']).toBe(7 * 24 * 3_600_000);
  });
});
