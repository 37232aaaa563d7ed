// The indicators strategies get, checked against values worked out by hand on short series (so a change of the
// library behind them shows), and the helpers that feed them bars.
import { describe, expect, it } from '@jest/globals';
import type { Bar } from '../../../src/domain/candles.js';
import { Decimal } from '../../../src/domain/decimal.js';
import { ATR, EMA, RSI, SMA, TR, feed, feedCandle, hlc, ohlcv, sma } from '../../../src/strategy/api.js';

const bar = (i: number, o: string, h: string, l: string, c: string, v = '1'): Bar => ({
  symbol: 'ETHUSDT_SPBL',
  timeframe: '1m',
  openMs: i * 60_000,
  closeMs: (i + 1) * 60_000,
  open: Decimal.from(o),
  high: Decimal.from(h),
  low: Decimal.from(l),
  close: Decimal.from(c),
  volume: Decimal.from(v),
  trades: 1,
});
const closing = (closes: number[]) => closes.map((c, i) => bar(i, String(c), String(c), String(c), String(c)));

describe('indicators', () => {
  it('EMA(3): weight 2/(3+1), seeded with the first close, stable after 3', () => {
    const ema = new EMA(3);
    const out = closing([10, 11, 12, 13]).map((b) => [feed(ema, b), ema.isStable]);
    // 10; 11·½ + 10·½ = 10.5; 12·½ + 10.5·½ = 11.25; 13·½ + 11.25·½ = 12.125
    expect(out).toEqual([
      [10, false],
      [10.5, false],
      [11.25, true],
      [12.125, true],
    ]);
  });

  it('RSI(3): Wilder smoothing, started from the plain average of the first 3 gains and losses', () => {
    const rsi = new RSI(3);
    const out = closing([10, 11, 10, 12, 13, 11]).map((b) => feed(rsi, b));
    // Changes +1 −1 +2 | +1 | −2. Averages after 3: gain 1, loss 1/3: RS 3, RSI 75.
    // Then gain 1 + (1 − 1)/3 = 1, loss 1/3 + (0 − 1/3)/3 = 2/9: RS 4.5, RSI 100 − 100/5.5.
    // Then gain 1 + (0 − 1)/3 = 2/3, loss 2/9 + (2 − 2/9)/3 = 22/27: RS 9/11, RSI 45.
    expect(out.slice(0, 3)).toEqual([null, null, null]);
    expect(out[3]).toBeCloseTo(75, 10);
    expect(out[4]).toBeCloseTo(100 - 100 / 5.5, 10);
    expect(out[5]).toBeCloseTo(45, 10);
    expect(rsi.isStable).toBe(true);
  });

  it("candle indicators take the bar's figures as numbers; SMA agrees with the plain sma helper", () => {
    const bars = [bar(0, '10', '12', '9', '11'), bar(1, '11', '11.5', '10.5', '11'), bar(2, '11', '15', '12', '14', '2.5')];
    const tr = new TR();
    // Ranges: 12 − 9 = 3; 11.5 − 10.5 = 1; max(15 − 12, |15 − 11|, |12 − 11|) = 4.
    expect(bars.map((b) => feedCandle(tr, b))).toEqual([3, 1, 4]);
    const atr = new ATR(2);
    for (const b of bars) feedCandle(atr, b);
    expect(atr.isStable).toBe(true);
    expect(hlc(bars[2]!)).toEqual({ high: 15, low: 12, close: 14 });
    expect(ohlcv(bars[2]!)).toEqual({ open: 11, high: 15, low: 12, close: 14, volume: 2.5 });
    const s = new SMA(3);
    for (const b of closing([1, 2, 4, 8])) feed(s, b);
    expect(s.getResult()).toBe(sma([1, 2, 4, 8], 3));
    expect(s.getResult()).toBeCloseTo(14 / 3, 12);
  });
});
