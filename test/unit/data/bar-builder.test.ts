// Bars from trades (ticks and steps), from the venue's candles, and coarser bars from finer ones: exact figures,
// every bar delivered, late trades, the order of closes, alignment, seeding, and bars independent of when closes run.
import { describe, expect, it } from '@jest/globals';
import { aggregateBars, barsFromCandles, BarBuilder } from '../../../src/data/bar-builder.js';
import type { Bar, Timeframe, VenueCandle } from '../../../src/domain/candles.js';
import { Decimal } from '../../../src/domain/decimal.js';

const d = (s: string) => Decimal.from(s);
const tickSize = d('0.1');
const stepSize = d('0.001');
const MIN = 60_000;
/** Thursday 2026-01-01 00:00 UTC. */
const T0 = Date.UTC(2026, 0, 1);

/** A bar as text, to compare exactly. */
const show = (b: Bar) => `${b.timeframe} ${new Date(b.openMs).toISOString().slice(0, 16)}-${new Date(b.closeMs).toISOString().slice(11, 16)} ${b.open}/${b.high}/${b.low}/${b.close} v${b.volume} n${b.trades}`;

function builder(timeframes: Timeframe[]) {
  const bars: Bar[] = [];
  const b = new BarBuilder({ symbol: 'cmt_btcusdt', timeframes, tickSize, stepSize, onClose: (bar) => bars.push(bar) });
  return { b, bars, shown: () => bars.map(show) };
}

describe('BarBuilder', () => {
  it('a bar has the exact open, high, low, close, volume and trade count of its trades, closed by the first trade after it', () => {
    const { b, bars, shown } = builder(['1m']);
    b.trade(T0 + 1000, 1000, 2);
    b.trade(T0 + 20_000, 1005, 3);
    b.trade(T0 + 40_000, 995, 1);
    b.trade(T0 + 59_999, 1001, 4);
    expect(bars).toEqual([]);
    b.trade(T0 + MIN, 1002, 5); // at the bar's close time: it closes first
    expect(shown()).toEqual(['1m 2026-01-01T00:00-00:01 100/100.5/99.5/100.1 v0.01 n4']);
    expect(bars[0]).toMatchObject({ symbol: 'cmt_btcusdt', openMs: T0, closeMs: T0 + MIN });
    expect(show(b.forming('1m')!)).toBe('1m 2026-01-01T00:01-00:02 100.2/100.2/100.2/100.2 v0.005 n1');
  });

  it('minutes without trades are delivered flat at the previous close with volume 0; nothing before the first trade', () => {
    const { b, shown } = builder(['1m']);
    b.closeUntil(T0 + 10 * MIN);
    expect(shown()).toEqual([]);
    expect(b.forming('1m')).toBeNull();
    b.trade(T0 + 10 * MIN + 5000, 1000, 1);
    b.trade(T0 + 10 * MIN + 6000, 990, 1);
    b.trade(T0 + 13 * MIN + 1, 1010, 2);
    expect(shown()).toEqual([
      '1m 2026-01-01T00:10-00:11 100/100/99/99 v0.002 n2',
      '1m 2026-01-01T00:11-00:12 99/99/99/99 v0 n0',
      '1m 2026-01-01T00:12-00:13 99/99/99/99 v0 n0',
    ]);
    b.closeUntil(T0 + 15 * MIN);
    expect(shown().slice(3)).toEqual(['1m 2026-01-01T00:13-00:14 101/101/101/101 v0.002 n1', '1m 2026-01-01T00:14-00:15 101/101/101/101 v0 n0']);
    // The forming bar without a trade yet is flat at the last close.
    expect(show(b.forming('1m')!)).toBe('1m 2026-01-01T00:15-00:16 101/101/101/101 v0 n0');
  });

  it('a trade older than the forming bar is late: counted, and in no bar of any timeframe', () => {
    const { b, shown } = builder(['1m', '5m']);
    b.trade(T0 + 1000, 1000, 1);
    b.closeUntil(T0 + MIN);
    b.trade(T0 + 59_000, 2000, 7); // for the bar just closed
    expect(b.late).toBe(1);
    b.trade(T0 + MIN + 1, 1001, 1);
    b.closeUntil(T0 + 5 * MIN);
    expect(shown()).toEqual([
      '1m 2026-01-01T00:00-00:01 100/100/100/100 v0.001 n1',
      '1m 2026-01-01T00:01-00:02 100.1/100.1/100.1/100.1 v0.001 n1',
      '1m 2026-01-01T00:02-00:03 100.1/100.1/100.1/100.1 v0 n0',
      '1m 2026-01-01T00:03-00:04 100.1/100.1/100.1/100.1 v0 n0',
      '1m 2026-01-01T00:04-00:05 100.1/100.1/100.1/100.1 v0 n0',
      '5m 2026-01-01T00:00-00:05 100/100.1/100/100.1 v0.002 n2',
    ]);
  });

  it('closes of several timeframes come in time order, the shorter timeframe first at the same time', () => {
    // Given out of order: the builder sorts its timeframes.
    const { b, shown } = builder(['15m', '1m', '5m']);
    expect(b.timeframes).toEqual(['1m', '5m', '15m']);
    b.trade(T0 + 3 * MIN, 1000, 1);
    b.trade(T0 + 16 * MIN + 1, 1010, 1);
    const order = shown().map((s) => s.split(' ').slice(0, 2).join(' '));
    expect(order).toEqual([
      '1m 2026-01-01T00:03-00:04', '1m 2026-01-01T00:04-00:05', '5m 2026-01-01T00:00-00:05',
      '1m 2026-01-01T00:05-00:06', '1m 2026-01-01T00:06-00:07', '1m 2026-01-01T00:07-00:08', '1m 2026-01-01T00:08-00:09', '1m 2026-01-01T00:09-00:10', '5m 2026-01-01T00:05-00:10',
      '1m 2026-01-01T00:10-00:11', '1m 2026-01-01T00:11-00:12', '1m 2026-01-01T00:12-00:13', '1m 2026-01-01T00:13-00:14', '1m 2026-01-01T00:14-00:15', '5m 2026-01-01T00:10-00:15', '15m 2026-01-01T00:00-00:15',
      '1m 2026-01-01T00:15-00:16',
    ]);
    // The first bars of a timeframe open where the first trade falls, aligned: 5m and 15m at 00:00.
    expect(shown()[2]).toBe('5m 2026-01-01T00:00-00:05 100/100/100/100 v0.001 n1');
  });

  it('days open at 00:00 UTC and weeks on Monday 00:00 UTC', () => {
    const { b, shown } = builder(['1d', '1w']);
    const sunday = Date.UTC(2026, 0, 11, 23, 59);
    const monday = Date.UTC(2026, 0, 12);
    b.trade(Date.UTC(2026, 0, 7, 12), 1000, 1); // a Wednesday
    b.trade(sunday, 1100, 1);
    b.trade(monday, 1200, 1);
    expect(shown()).toEqual([
      '1d 2026-01-07T00:00-00:00 100/100/100/100 v0.001 n1',
      '1d 2026-01-08T00:00-00:00 100/100/100/100 v0 n0',
      '1d 2026-01-09T00:00-00:00 100/100/100/100 v0 n0',
      '1d 2026-01-10T00:00-00:00 100/100/100/100 v0 n0',
      '1d 2026-01-11T00:00-00:00 110/110/110/110 v0.001 n1',
      '1w 2026-01-05T00:00-00:00 100/110/100/110 v0.002 n2',
    ]);
    expect(b.forming('1w')).toMatchObject({ openMs: monday, closeMs: monday + 7 * 24 * 60 * MIN });
  });

  it('seeded from history: the forming bar goes on from the venue\'s figures, trades it already counted are ignored', () => {
    const { b, shown } = builder(['1m', '5m']);
    const bar = (tf: Timeframe, openMs: number, lenMs: number, o: string, h: string, l: string, c: string, v: string): Bar => ({ symbol: 'cmt_btcusdt', timeframe: tf, openMs, closeMs: openMs + lenMs, open: d(o), high: d(h), low: d(l), close: d(c), volume: d(v), trades: 0 });
    const asOf = T0 + 7 * MIN + 30_000;
    // 1m: the last closed bar and the forming one (volume not in whole steps: kept exact).
    b.seed('1m', bar('1m', T0 + 6 * MIN, MIN, '100', '101', '99', '100.5', '3'), bar('1m', T0 + 7 * MIN, MIN, '100.5', '102', '100.5', '101', '1.23456'), asOf);
    // 5m: only the last closed bar; the forming one starts flat at its close.
    b.seed('5m', bar('5m', T0, 5 * MIN, '99', '103', '98', '100.2', '10'), null, asOf);
    expect(show(b.forming('5m')!)).toBe('5m 2026-01-01T00:05-00:10 100.2/100.2/100.2/100.2 v0 n0');
    b.trade(asOf - 1, 1100, 50); // already in the venue's candle
    b.trade(asOf, 1100, 50);
    b.trade(asOf + 1, 1030, 2);
    b.closeUntil(T0 + 9 * MIN);
    expect(shown()).toEqual([
      '1m 2026-01-01T00:07-00:08 100.5/103/100.5/103 v1.23656 n1',
      '1m 2026-01-01T00:08-00:09 103/103/103/103 v0 n0',
    ]);
    expect(b.late).toBe(0);
    b.closeUntil(T0 + 10 * MIN);
    expect(shown()[3]).toBe('5m 2026-01-01T00:05-00:10 103/103/103/103 v0.002 n1');
  });

  it('a seed that is not a bar of its timeframe is refused', () => {
    const { b } = builder(['5m']);
    const wrong: Bar = { symbol: 'cmt_btcusdt', timeframe: '5m', openMs: T0 + MIN, closeMs: T0 + 6 * MIN, open: d('1'), high: d('1'), low: d('1'), close: d('1'), volume: d('0'), trades: 0 };
    expect(() => b.seed('5m', wrong, null, T0 + 6 * MIN)).toThrow(/not a 5m bar/);
    expect(() => b.seed('1h', null, null, T0)).toThrow(/1h is not built/);
  });

  it('exact prices and sizes from live data go in as ticks and steps', () => {
    const { b, shown } = builder(['1m']);
    b.tradeDecimal(T0, d('65000.3'), d('0.015'));
    b.tradeDecimal(T0 + 1, d('65000.1'), d('1'));
    b.closeUntil(T0 + MIN);
    expect(shown()).toEqual(['1m 2026-01-01T00:00-00:01 65000.3/65000.3/65000.1/65000.1 v1.015 n2']);
  });

  it('the same trades give the same bars whether closes run between them or not (at any time up to the next trade)', () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed % n;
    };
    const trades: Array<[number, number, number]> = [];
    let t = T0 + 17_000;
    let p = 10_000;
    for (let i = 0; i < 3000; i++) {
      // Mostly seconds apart, sometimes a quiet spell of minutes or hours.
      t += next(10) === 0 ? next(3 * 3600_000) : next(20_000);
      p += next(21) - 10;
      trades.push([t, p, 1 + next(50)]);
    }
    const tfs: Timeframe[] = ['1m', '5m', '1h', '4h', '1d'];
    const straight = builder(tfs);
    for (const [ts, px, sz] of trades) straight.b.trade(ts, px, sz);
    const end = t + 2 * 24 * 3600_000;
    straight.b.closeUntil(end);

    const interleaved = builder(tfs);
    let closes = 0;
    for (let i = 0; i < trades.length; i++) {
      const [ts, px, sz] = trades[i]!;
      interleaved.b.trade(ts, px, sz);
      const nextTs = trades[i + 1]?.[0] ?? end;
      // Closes at times up to the next trade: one, several, or at the very instant of it.
      for (let k = next(3); k > 0; k--) {
        const at = next(4) === 0 ? nextTs : ts + next(nextTs - ts + 1);
        interleaved.b.closeUntil(at);
        closes++;
      }
    }
    interleaved.b.closeUntil(end);
    expect(closes).toBeGreaterThan(1000);
    expect(interleaved.b.late).toBe(0);
    expect(interleaved.shown()).toEqual(straight.shown());
    expect(straight.bars.length).toBeGreaterThan(3000);
    // Each coarser bar sums its finer ones.
    const volume = (tf: Timeframe) => straight.bars.filter((b) => b.timeframe === tf).reduce((a, b) => a.add(b.volume), Decimal.ZERO).toString();
    expect(volume('5m')).toBe(volume('1m'));
    expect(volume('1d')).toBe(volume('1m'));
  });
});

describe('barsFromCandles', () => {
  const candle = (openMs: number, o: string, h: string, l: string, c: string, v: string): VenueCandle => ({ openMs, open: d(o), high: d(h), low: d(l), close: d(c), baseVolume: d(v), quoteVolume: d('0') });

  it('closed bars oldest first, a missing candle filled flat, the forming one apart, repeats once, later ones left out', () => {
    const candles = [
      candle(T0 + 4 * MIN, '103', '104', '102', '103.5', '4'),
      candle(T0, '100', '101', '99', '100.5', '1'),
      candle(T0 + MIN, '100.5', '102', '100', '101', '2'),
      candle(T0 + MIN, '100.5', '102', '100', '101.5', '2.5'), // served again, updated
      candle(T0 + 5 * MIN, '103.5', '103.5', '103.5', '103.5', '0.1'), // after nowMs
    ];
    const { closed, forming } = barsFromCandles('BTCUSDT_SPBL', '1m', candles, T0 + 4 * MIN + 30_000);
    expect(closed.map(show)).toEqual([
      '1m 2026-01-01T00:00-00:01 100/101/99/100.5 v1 n0',
      '1m 2026-01-01T00:01-00:02 100.5/102/100/101.5 v2.5 n0',
      '1m 2026-01-01T00:02-00:03 101.5/101.5/101.5/101.5 v0 n0',
      '1m 2026-01-01T00:03-00:04 101.5/101.5/101.5/101.5 v0 n0',
    ]);
    expect(show(forming!)).toBe('1m 2026-01-01T00:04-00:05 103/104/102/103.5 v4 n0');
    // At the forming candle's end it is closed.
    expect(barsFromCandles('BTCUSDT_SPBL', '1m', candles, T0 + 5 * MIN - 1).forming).not.toBeNull();
    expect(barsFromCandles('BTCUSDT_SPBL', '1m', candles.slice(0, 4), T0 + 5 * MIN).forming).toBeNull();
    expect(() => barsFromCandles('BTCUSDT_SPBL', '5m', candles, T0 + 10 * MIN)).toThrow(/not on a 5m boundary/);
  });
});

describe('aggregateBars', () => {
  const hour = 60 * MIN;
  const h1 = (i: number, o: string, h: string, l: string, c: string, v: string, n = 0): Bar => ({ symbol: 'cmt_ethusdt', timeframe: '1h', openMs: T0 + i * hour, closeMs: T0 + (i + 1) * hour, open: d(o), high: d(h), low: d(l), close: d(c), volume: d(v), trades: n });

  it('2h bars from 1h bars, exactly; a first bar missing its start is left out; the last one with the forming bar is forming', () => {
    const closed = [
      h1(1, '9', '9', '9', '9', '9'), // the second hour of the 00:00 2h bar: its start is missing
      h1(2, '10', '12', '9.5', '11', '1.25', 3),
      h1(3, '11', '11.5', '8.75', '10', '0.75', 2),
      h1(4, '10', '10', '10', '10', '0'),
      h1(5, '10', '13', '10', '12', '2'),
      h1(6, '12', '12.5', '11', '11.5', '1'),
    ];
    const forming = h1(7, '11.5', '14', '11.5', '13', '0.5');
    const out = aggregateBars(closed, forming, '2h');
    expect(out.closed.map(show)).toEqual(['2h 2026-01-01T02:00-04:00 10/12/8.75/10 v2 n5', '2h 2026-01-01T04:00-06:00 10/13/10/12 v2 n0']);
    expect(show(out.forming!)).toBe('2h 2026-01-01T06:00-08:00 12/14/11/13 v1.5 n0');
    // Without the forming hour, the 06:00 bar has only its first hour so far: still forming.
    expect(show(aggregateBars(closed, null, '2h').forming!)).toBe('2h 2026-01-01T06:00-08:00 12/12.5/11/11.5 v1 n0');
    // The forming hour opens a new 2h bar: the last closed pair is complete.
    const even = aggregateBars(closed.slice(0, 5), h1(6, '12', '12', '12', '12', '0'), '2h');
    expect(even.closed).toHaveLength(2);
    expect(show(even.forming!)).toBe('2h 2026-01-01T06:00-08:00 12/12/12/12 v0 n0');
  });

  it('weeks from days; timeframes that do not divide, mixed or broken series are refused', () => {
    const day = 24 * hour;
    const monday = Date.UTC(2026, 0, 5);
    const days: Bar[] = Array.from({ length: 8 }, (_, i) => ({ symbol: 's', timeframe: '1d', openMs: monday + i * day, closeMs: monday + (i + 1) * day, open: d(String(i + 1)), high: d(String(i + 2)), low: d(String(i)), close: d(String(i + 1)), volume: d('1'), trades: 1 }));
    const weeks = aggregateBars(days, null, '1w');
    expect(weeks.closed.map(show)).toEqual(['1w 2026-01-05T00:00-00:00 1/8/0/7 v7 n7']);
    expect(show(weeks.forming!)).toBe('1w 2026-01-12T00:00-00:00 8/9/7/8 v1 n1');
    const eight: Bar = { ...h1(0, '1', '1', '1', '1', '1'), timeframe: '8h', closeMs: T0 + 8 * hour };
    expect(() => aggregateBars([eight], null, '12h')).toThrow(/12h bars cannot be made of 8h bars/);
    expect(() => aggregateBars([h1(0, '1', '1', '1', '1', '1'), h1(2, '1', '1', '1', '1', '1')], null, '2h')).toThrow(/not contiguous/);
    expect(() => aggregateBars([h1(0, '1', '1', '1', '1', '1'), { ...h1(1, '1', '1', '1', '1', '1'), timeframe: '30m' }], null, '2h')).toThrow(/a 30m bar among 1h bars/);
    // Bars of the timeframe asked for come back as they are.
    expect(aggregateBars(days, null, '1d').closed).toEqual(days);
  });
});
