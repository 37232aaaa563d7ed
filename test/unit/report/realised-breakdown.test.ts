// What was realised by time window and by symbol (the operator's /profit and /performance): one average-cost book per
// strategy and symbol over every fill, each fill's realised PnL (fees included) counted in the windows its time falls
// in; shorts and flips through zero; round trips counted where a book returns to zero or crosses it; the all-time
// figures those of strategyPnls().
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { Fill } from '../../../src/domain/market.js';
import { realisedBreakdown, strategyPnls } from '../../../src/report/metrics.js';

const d = (s: string) => Decimal.from(s);
let n = 0;
const owner = new Map<Fill, string>();
function fill(strategy: string, symbol: string, side: 'buy' | 'sell', price: string, size: string, fee: string, atMs: number): Fill {
  const f: Fill = {
    symbol,
    orderId: String(++n),
    fillId: `f${n}`,
    side,
    price: d(price),
    size: d(size),
    amount: d(price).mul(d(size)),
    fee: d(fee),
    timestampMs: atMs,
  };
  owner.set(f, strategy);
  return f;
}
const strategyOf = (f: Fill) => owner.get(f)!;

describe('realised PnL by window and by symbol', () => {
  it('books over all fills, counts each fill in its windows, and totals them', () => {
    const fills = [
      // a on X: short 2 at 50 (t 10), buy back 1 at 40 (t 20: +10), buy 3 at 45 (t 30: closes 1 at +5, flips long 2 at 45).
      fill('a', 'X', 'sell', '50', '2', '0.1', 10),
      fill('a', 'X', 'buy', '40', '1', '0.04', 20),
      fill('a', 'X', 'buy', '45', '3', '0.135', 30),
      // b on X: its own book, whatever a holds: long 1 at 44, sold at 46 (t 30: +2).
      fill('b', 'X', 'buy', '44', '1', '0', 5),
      fill('b', 'X', 'sell', '46', '1', '0.01', 30),
      // a on Y: a loss (t 25: -3).
      fill('a', 'Y', 'buy', '10', '1', '0', 15),
      fill('a', 'Y', 'sell', '7', '1', '0', 25),
    ];
    const r = realisedBreakdown(fills, strategyOf, [null, 20, 30]);
    expect(r.windows.map((w) => w.sinceMs)).toEqual([null, 20, 30]);
    const [all, from20, from30] = r.windows;
    expect(all!.byStrategy).toEqual({
      a: { realized: '11.72500000', fees: '0.27500000', fills: 5, roundTrips: 2 },
      b: { realized: '1.99000000', fees: '0.01000000', fills: 2, roundTrips: 1 },
    });
    expect(all!.total).toEqual({ realized: '13.71500000', fees: '0.28500000', fills: 7, roundTrips: 3 });
    // From t 20: a's first sell (and b's buy, a's buy on Y) are out; their fees too.
    expect(from20!.byStrategy.a).toEqual({ realized: '11.82500000', fees: '0.17500000', fills: 3, roundTrips: 2 });
    expect(from30!.byStrategy).toEqual({
      a: { realized: '4.86500000', fees: '0.13500000', fills: 1, roundTrips: 1 },
      b: { realized: '1.99000000', fees: '0.01000000', fills: 1, roundTrips: 1 },
    });
    expect(r.bySymbol).toEqual({
      X: { realized: '16.71500000', fees: '0.28500000', fills: 5, roundTrips: 2 },
      Y: { realized: '-3.00000000', fees: '0.00000000', fills: 2, roundTrips: 1 },
    });
    // All time, a strategy's figures are those strategyPnls() gives.
    const pnl = strategyPnls(fills, strategyOf, () => null);
    for (const id of ['a', 'b'])
      expect({ realized: pnl[id]!.realized, fees: pnl[id]!.fees, fills: pnl[id]!.fills }).toEqual({
        realized: all!.byStrategy[id]!.realized,
        fees: all!.byStrategy[id]!.fees,
        fills: all!.byStrategy[id]!.fills,
      });
  });

  it('answers nothing for no fills', () => {
    expect(realisedBreakdown([], strategyOf, [null])).toEqual({
      windows: [{ sinceMs: null, byStrategy: {}, total: { realized: '0.00000000', fees: '0.00000000', fills: 0, roundTrips: 0 } }],
      bySymbol: {},
    });
  });
});
