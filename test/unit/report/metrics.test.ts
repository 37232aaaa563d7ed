import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { Fill } from '../../../src/domain/market.js';
import { computeMetrics, realize } from '../../../src/report/metrics.js';

const d = (s: string) => Decimal.from(s);
const fill = (side: 'buy' | 'sell', price: string, size: string, fee = '0'): Fill => ({ symbol: 'X', orderId: '1', fillId: `${side}${price}`, side, price: d(price), size: d(size), amount: d(price).mul(d(size)), fee: d(fee), timestampMs: 0 });

describe('realised PnL (average cost)', () => {
  it('longs, partial closes, flips to short, fees', () => {
    const rows = realize([fill('buy', '100', '1'), fill('buy', '110', '1'), fill('sell', '120', '1', '0.5'), fill('sell', '90', '2'), fill('buy', '80', '1')]);
    expect(rows.map((r) => r.realizedPnl.toString())).toEqual(['0', '0', '14.5', '-15', '10']);
  });
});

describe('metrics', () => {
  it('PnL, drawdown, win rate and profit factor', () => {
    const eq = ['100', '110', '99', '121'].map((e, i) => ({ ts: i, equity: d(e) }));
    const m = computeMetrics(eq, realize([fill('buy', '10', '1'), fill('sell', '12', '1'), fill('buy', '10', '1'), fill('sell', '9', '1')]), [true, false, true, true], 1);
    expect(m).toMatchObject({ netPnl: '21.00000000', returnPct: '21', maxDrawdownPct: '10', fills: 4, winRatePct: '50', profitFactor: '2', exposurePct: '75' });
  });
});
