// Each strategy's books filled one fill at a time give what strategyPnls() gives over the whole list, funding with
// more places than the fills included.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { strategyPnls } from '../../../src/report/metrics.js';
import { StrategyPnlBooks } from '../../../src/report/strategy-pnl-books.js';
import { beyondSafe, randomRun } from './random-run.js';

const d = (s: string) => Decimal.from(s);

describe('StrategyPnlBooks', () => {
  it.each([
    [1, false],
    [2, false],
    [3, false],
    [4, false],
    [5, false],
    [6, false],
    [7, true],
    [8, true],
  ])('seed %i (amounts beyond 2^53: %s): realised, unrealised, fees, funding and fills per strategy as over the whole list', (seed, huge) => {
    const run = randomRun(seed, 700, { strategies: ['s1', 's2', 's3'], huge });
    expect(beyondSafe(run)).toBe(huge);
    const books = new StrategyPnlBooks();
    const ownerOf = (orderId: string) => run.owners.get(orderId)!;
    for (const f of run.fills) books.fill(ownerOf(f.orderId), f);
    const last: Record<string, Decimal> = { A: d('100.12345'), B: d('251'), S: d('9000.5') };
    const funding = [
      { strategy: 's1', amount: d('-1.234567891234') },
      { strategy: '(funding)', amount: d('0.5') },
      { strategy: 's2', amount: d('0.000000000001') },
    ];
    const expected = strategyPnls(
      run.fills,
      (f) => ownerOf(f.orderId),
      (s) => last[s],
      funding,
    );
    expect(Object.keys(expected).length).toBeGreaterThan(3);
    expect(books.result((s) => last[s], funding)).toEqual(expected);
  });
});
