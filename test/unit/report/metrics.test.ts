import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { Fill } from '../../../src/domain/market.js';
import { computeMetrics, realize, strategyPnls } from '../../../src/report/metrics.js';
import { roundTrips, tradeStats } from '../../../src/report/round-trips.js';

const d = (s: string) => Decimal.from(s);
const fill = (side: 'buy' | 'sell', price: string, size: string, fee = '0', symbol = 'X', orderId = '1'): Fill => ({
  symbol,
  orderId,
  fillId: `${side}${price}`,
  side,
  price: d(price),
  size: d(size),
  amount: d(price).mul(d(size)),
  fee: d(fee),
  timestampMs: 0,
});

describe('realised PnL (average cost)', () => {
  it('longs, partial closes, flips to short, fees', () => {
    const rows = realize([fill('buy', '100', '1'), fill('buy', '110', '1'), fill('sell', '120', '1', '0.5'), fill('sell', '90', '2'), fill('buy', '80', '1')]);
    expect(rows.map((r) => r.realizedPnl.toString())).toEqual(['0', '0', '14.5', '-15', '10']);
  });
});

describe('metrics', () => {
  it('drawdown, win rate and profit factor (of the closed round trips)', () => {
    const eq = ['100', '110', '99', '121'].map((e, i) => ({ ts: i, equity: d(e), hold: d('100') }));
    const fills = [fill('buy', '10', '1'), fill('sell', '12', '1'), fill('buy', '10', '1'), fill('sell', '9', '1')];
    const trips = tradeStats(roundTrips(fills.map((f) => ({ fill: f, strategy: 's', positionSide: null }))));
    const m = computeMetrics({ equity: eq, executions: realize(fills), trips, exposed: [true, false, true, true], sampleMs: 1000 });
    expect(m).toMatchObject({
      trades: 2,
      accountPnl: '21.00000000',
      accountReturnPct: '21',
      maxDrawdownPct: '10',
      fills: 4,
      winRatePct: '50',
      profitFactor: '2',
      exposurePct: '75',
    });
  });

  it('the strategy PnL leaves out the move of the starting holdings; buy-and-hold is that move', () => {
    // An account of 1 unit at 100 plus 100 in cash. The price falls to 80; trading earned 5 meanwhile.
    const eq = [
      { ts: 0, equity: d('200'), hold: d('200') },
      { ts: 1, equity: d('185'), hold: d('180') },
    ];
    const m = computeMetrics({ equity: eq, executions: [], exposed: [], sampleMs: 1000 });
    expect(m).toMatchObject({
      strategyPnl: '5.00000000',
      strategyReturnPct: '2.5',
      buyAndHoldPnl: '-20.00000000',
      buyAndHoldReturnPct: '-10',
      accountPnl: '-15.00000000',
      accountReturnPct: '-7.5',
      startEquity: '200.00000000',
      endEquity: '185.00000000',
    });
  });
});

describe("each strategy's PnL from its own fills", () => {
  it('realised at average cost with fees, plus what it still holds at the last price; books apart per strategy', () => {
    const fills = [
      fill('buy', '100', '2', '0.2', 'X', 'a1'), // a: long 2 at 100
      fill('sell', '110', '1', '0.11', 'X', 'a2'), // a: realises 10, holds 1 at 100
      fill('sell', '105', '1', '0.1', 'X', 'b1'), // b: short 1 at 105 on the same symbol
      fill('buy', '50', '1', '0', 'Y', 'b2'), // b: long 1 of Y at 50
    ];
    const owner: Record<string, string> = { a1: 'a', a2: 'a', b1: 'b', b2: 'b' };
    const last: Record<string, string> = { X: '120', Y: '40' };
    const pnl = strategyPnls(
      fills,
      (f) => owner[f.orderId]!,
      (s) => d(last[s]!),
    );
    expect(pnl).toEqual({
      a: { realized: '9.69000000', unrealized: '20.00000000', fees: '0.31000000', funding: '0.00000000', pnl: '29.69000000', fills: 2 },
      b: { realized: '-0.10000000', unrealized: '-25.00000000', fees: '0.10000000', funding: '0.00000000', pnl: '-25.10000000', fills: 2 },
    });
    // Together: what every fill earned against the last price, fees paid.
    const total = fills.reduce((a, f) => a.add((f.side === 'buy' ? f.size : f.size.neg()).mul(d(last[f.symbol]!).sub(f.price))).sub(f.fee), Decimal.ZERO);
    expect(d(pnl.a!.pnl).add(d(pnl.b!.pnl)).eq(total)).toBe(true);
  });
});

describe('max drawdown', () => {
  /** The drawdown as each sample rounds it, the largest kept (the figure's definition). */
  function reference(equity: Decimal[]): string {
    let peak = equity[0] ?? Decimal.ZERO;
    let maxDd = Decimal.ZERO;
    for (const e of equity) {
      if (e.gt(peak)) peak = e;
      if (!peak.isZero()) {
        const dd = peak.sub(e).mul(Decimal.fromInt(100)).div(peak, 6);
        if (dd.gt(maxDd)) maxDd = dd;
      }
    }
    return maxDd.toString();
  }

  it("is the largest of the samples' rounded drawdowns, over series of any sign and number of places", () => {
    let x = 12345;
    const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
    for (let run = 0; run < 300; run++) {
      const n = 1 + (next() % 40);
      const base = BigInt(next() % 3 === 0 ? -1 : 1) * BigInt(1 + (next() % 100_000));
      const equity = Array.from({ length: n }, () =>
        Decimal.of(base * 10n ** 6n + BigInt((next() % 2_000_001) - 1_000_000) * BigInt(1 + (next() % 50)), next() % 12),
      );
      if (run % 10 === 0) equity.splice(next() % n, 0, Decimal.ZERO);
      // A constant buy-and-hold: the strategy's equity is the account's.
      const points = equity.map((e, i) => ({ ts: i, equity: e, hold: Decimal.ZERO }));
      expect(computeMetrics({ equity: points, executions: [], exposed: [], sampleMs: 1000 }).maxDrawdownPct).toBe(reference(equity));
    }
  });
});
