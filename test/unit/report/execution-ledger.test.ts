// The executions folded one at a time give what the whole list gives: each one's realised PnL (trades.csv's text),
// the metrics' totals and the futures fees by kind, over seeded random runs whose fills carry more places as they go.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { ExecutionLedger } from '../../../src/report/execution-ledger.js';
import { feesByKind, type FeesByKind } from '../../../src/report/futures.js';
import { computeMetrics, realize, tradeTotals, type TradeTotals } from '../../../src/report/metrics.js';
import { beyondSafe, randomRun } from './random-run.js';

const d = (s: string) => Decimal.from(s);
const totalsText = (t: TradeTotals) => ({ ...t, grossWin: t.grossWin.toString(), grossLoss: t.grossLoss.toString(), fees: t.fees.toString() });
const feesText = (f: FeesByKind) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, v.toString()]));

describe('ExecutionLedger', () => {
  it.each([
    [1, false],
    [2, false],
    [3, false],
    [4, false],
    [5, false],
    [6, false],
    [7, true],
    [8, true],
    [9, true],
  ])('seed %i (amounts beyond 2^53: %s): realised PnL per execution, totals and fees by kind as over the whole list', (seed, huge) => {
    const run = randomRun(seed, 700, { huge });
    expect(beyondSafe(run)).toBe(huge);
    const ledger = new ExecutionLedger(run.futures);
    const texts = run.fills.map((f) => {
      ledger.record(f, run.kinds.get(f.fillId));
      return ledger.realizedText();
    });
    const rows = realize(run.fills);
    expect(texts).toEqual(rows.map((t) => t.realizedPnl.toString()));
    const totals = tradeTotals(rows);
    expect(totals.closes).toBeGreaterThan(0);
    expect(totals.wins).toBeGreaterThan(0);
    expect(totalsText(ledger.totals())).toEqual(totalsText(totals));
    expect(feesText(ledger.feesByKind())).toEqual(feesText(feesByKind(rows, run.kinds, run.futures)));
    const equity = ['100', '90', '120'].map((e, i) => ({ ts: i, equity: d(e), hold: d('100') }));
    const inputs = { equity, exposed: [true, false, true], sampleMs: 1000 };
    expect(computeMetrics({ ...inputs, executions: ledger.totals() })).toEqual(computeMetrics({ ...inputs, executions: rows }));
  });

  it('a fill with more places than those before it widens the books: what was booked keeps its value', () => {
    const fill = (side: 'buy' | 'sell', price: string, size: string, fee: string) => ({
      symbol: 'X',
      orderId: '1',
      fillId: `${side}${price}`,
      side,
      price: d(price),
      size: d(size),
      amount: d(price).mul(d(size)),
      fee: d(fee),
      timestampMs: 0,
    });
    // Then a fill of more than 18 places (no safe scale holds it: the books go on in BigInt) and the books after it.
    const fills = [
      fill('buy', '100', '1', '0.1'),
      fill('buy', '100.123456789', '0.5', '0.000000001'),
      fill('sell', '99.5', '1.5', '0.07'),
      fill('sell', '98', '1', '0'),
      fill('buy', '98', '1', '0'),
      fill('buy', '1.00000000000000000001', '2', '0.00000000000000000003'),
      fill('sell', '97', '3', '0.01'),
      fill('sell', '96', '1', '0'),
    ];
    const ledger = new ExecutionLedger(new Set());
    expect(
      fills.map((f) => {
        ledger.record(f, undefined);
        return ledger.realizedText();
      }),
    ).toEqual(realize(fills).map((t) => t.realizedPnl.toString()));
    expect(totalsText(ledger.totals())).toEqual(totalsText(tradeTotals(realize(fills))));
  });
});
