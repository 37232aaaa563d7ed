// One symbol's candles in the simulator: minutes built from ticks, larger timeframes folded from the minutes, the
// seeded past joined at the start (deterministic, the same however it is reached), and a replay with no past.
import { describe, expect, it } from '@jest/globals';
import { TIMEFRAME_MS, type Timeframe } from '../../../../src/domain/candles.js';
import { SymbolCandles } from '../../../../src/exchange/sim/symbol-candles.js';
import { PAST_DAYS, SyntheticPast } from '../../../../src/exchange/sim/synthetic-past.js';
import type { TickBar } from '../../../../src/exchange/sim/tick-bar.js';

const MIN = 60_000;
const DAY = 1440 * MIN;
const T0 = 1_700_000_000_000; // 22:13:20 UTC: inside a minute, an hour and a day
const bar = (b: TickBar) => [b.openMs, b.open, b.high, b.low, b.close, b.volSteps, b.quoteTickSteps];

function past(startMs = T0, seed = 5): SyntheticPast {
  return new SyntheticPast({ seed, symbol: 'cmt_btcusdt', startMs, firstTicks: 900_000, volBps: 2, ticksPerMinute: 60, minSteps: 1 });
}

/** The bar of `tf` opening at `openMs` folded from the smaller bars it holds (first open, last close, extremes, sums). */
function foldBars(minutes: TickBar[], tf: Timeframe, openMs: number): unknown[] {
  const inside = minutes.filter((m) => m.openMs >= openMs && m.openMs < openMs + TIMEFRAME_MS[tf]).sort((a, b) => a.openMs - b.openMs);
  return [
    openMs,
    inside[0]!.open,
    Math.max(...inside.map((m) => m.high)),
    Math.min(...inside.map((m) => m.low)),
    inside.at(-1)!.close,
    inside.reduce((a, m) => a + m.volSteps, 0),
    inside.reduce((a, m) => a + m.quoteTickSteps, 0n),
  ];
}

describe('candles built from ticks', () => {
  it("a minute holds its ticks' first, highest, lowest and last price and their volumes; newest first, the forming one first", () => {
    const c = new SymbolCandles(null);
    c.onTick(T0, 100, 2);
    c.onTick(T0 + 10_000, 104, 1);
    c.onTick(T0 + 20_000, 98, 3);
    c.onTick(T0 + 45_000, 101, 1); // the next minute (22:14:05)
    expect(c.latest('1m', 10).map(bar)).toEqual([
      [T0 - 20_000 + MIN, 101, 101, 101, 101, 1, 101n],
      [T0 - 20_000, 100, 104, 98, 98, 6, 200n + 104n + 294n],
    ]);
    expect(c.latest('1m', 1)).toHaveLength(1);
    // The hour folds both minutes, the forming one included.
    expect(c.latest('1h', 5).map(bar)).toEqual([[T0 - 13 * MIN - 20_000, 100, 104, 98, 101, 7, 699n]]);
  });

  it('larger timeframes agree with the minutes over many periods; a window gives the newest `limit` inside it', () => {
    const c = new SymbolCandles(null);
    let price = 1000;
    for (let t = 0; t < 3 * 60 * MIN; t += 7_000) {
      price += (((t / 7_000) * 7919) % 11) - 5;
      c.onTick(T0 + t, price, 1 + ((t / 7_000) % 3));
    }
    const minutes = c.latest('1m', 10_000);
    for (const tf of ['5m', '15m', '1h'] as const) {
      for (const b of c.latest(tf, 100)) expect(bar(b)).toEqual(foldBars(minutes, tf, b.openMs));
    }
    const from = minutes[50]!.openMs;
    const to = minutes[10]!.openMs;
    expect(c.between('1m', from, to, 100).map((b) => b.openMs)).toEqual(minutes.slice(10, 51).map((b) => b.openMs));
    expect(c.between('1m', from, to, 5).map((b) => b.openMs)).toEqual(minutes.slice(10, 15).map((b) => b.openMs));
  });

  it('a replay has no past: only what was built', () => {
    const c = new SymbolCandles(null);
    c.onTick(T0, 100, 1);
    expect(c.latest('1m', 1000)).toHaveLength(1);
    expect(c.between('1d', 0, T0 - DAY, 100)).toEqual([]);
  });
});

describe('the seeded past', () => {
  it('ends at the first price, just before the minute of the first tick, and reaches at least 90 days back', () => {
    const p = past();
    expect(p.endMs).toBe(T0 - 20_000);
    const last = p.aggregate(p.endMs - MIN, p.endMs - MIN, p.endMs)!;
    expect(last.close).toBe(900_000);
    expect(p.aggregate(p.endMs, p.endMs, p.endMs + MIN)).toBeNull();
    expect(PAST_DAYS).toBeGreaterThanOrEqual(90);
    expect(p.aggregate(T0 - 91 * DAY, T0 - 91 * DAY, T0 - 91 * DAY + MIN)).not.toBeNull();
    expect(p.aggregate(p.beginMs - MIN, p.beginMs - MIN, p.beginMs)).toBeNull();
  });

  it('is a function of the seed, the symbol and the start: the same bars whatever was generated or dropped before', () => {
    const at = T0 - 3 * DAY;
    const first = past().aggregate(at, at, at + 2 * DAY);
    const second = past();
    // Reach further back first, so the minutes of the days asked for leave the cache, then come back.
    for (let k = 1; k <= 40; k++) second.aggregate(T0 - k * DAY, T0 - k * DAY, T0 - k * DAY + 30 * MIN);
    expect(second.aggregate(at, at, at + 2 * DAY)).toEqual(first);
    expect(past(T0, 6).aggregate(at, at, at + 2 * DAY)).not.toEqual(first);
    expect(past(T0 + DAY).aggregate(at, at, at + 2 * DAY)).not.toEqual(first);
  });

  it("every timeframe agrees with the minutes; the bar holding the start joins the past's minutes to the ticks after it", () => {
    const c = new SymbolCandles(past());
    c.onTick(T0, 900_000, 4);
    c.onTick(T0 + 30_000, 900_010, 2);
    c.onTick(T0 + 90_000, 899_990, 1);
    const minutes = c.latest('1m', 3 * 1440);
    expect(minutes).toHaveLength(3 * 1440);
    for (let i = 1; i < minutes.length; i++) expect(minutes[i - 1]!.openMs - minutes[i]!.openMs).toBe(MIN);
    // The past's minutes continue into the first built minute: each opens where the one before closed.
    const start = minutes.findIndex((m) => m.openMs === T0 - 20_000);
    expect(minutes[start]!.open).toBe(900_000);
    expect(minutes[start + 1]!.close).toBe(900_000);
    for (const tf of ['5m', '15m', '1h', '4h', '12h'] as const) {
      const bars = c.latest(tf, 4);
      for (const b of bars) expect(bar(b)).toEqual(foldBars(minutes, tf, b.openMs));
    }
    const dayOpen = Math.floor(T0 / DAY) * DAY - 2 * DAY;
    const [day] = c.between('1d', dayOpen, dayOpen, 1);
    expect(bar(day!)).toEqual(foldBars(minutes, '1d', day!.openMs));
    // Weeks open on Mondays 00:00 UTC and are their seven days.
    const weeks = c.latest('1w', 3);
    const days = c.latest('1d', 3 * 7 + 2);
    expect(weeks.every((w) => new Date(w.openMs).getUTCDay() === 1 && w.openMs % DAY === 0)).toBe(true);
    const week = weeks[1]!;
    const itsDays = days.filter((d) => d.openMs >= week.openMs && d.openMs < week.openMs + 7 * DAY);
    expect(itsDays).toHaveLength(7);
    expect(bar(week)).toEqual(foldBars(itsDays, '1w', week.openMs));
  });

  it('once built bars were dropped past their bound, they no longer join the past', () => {
    const c = new SymbolCandles(past());
    for (let m = 0; m < 2 * 10_080 + 5; m++) c.onTick(T0 + m * MIN, 900_000, 1);
    const all = c.latest('1m', 50_000);
    expect(all.length).toBeLessThan(2 * 10_080 + 5);
    expect(all.at(-1)!.openMs).toBeGreaterThan(T0);
  });
});
