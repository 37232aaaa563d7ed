// Monte Carlo of the out-of-sample trades: a seeded bootstrap, exact money sums, drawdowns of each path, the
// percentiles by nearest rank.
import { describe, expect, it } from '@jest/globals';
import { monteCarlo, percentileOf } from '../../../src/research/monte-carlo.js';
import { Prng } from '../../../src/util/prng.js';

describe('percentiles', () => {
  it('nearest rank: the smallest value with at least p % of the values at or below it', () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect([0, 5, 10, 11, 50, 95, 100].map((p) => percentileOf(xs, p))).toEqual([1, 1, 1, 2, 5, 10, 10]);
    expect(percentileOf([7], 50)).toBe(7);
  });
});

describe('monte carlo', () => {
  it('the trades as they happened: final PnL, return and the deepest fall from a peak', () => {
    const r = monteCarlo(['10', '-20', '5', '-10'], '100', { runs: 10, seed: 1, percentiles: [50] });
    // Equity 110, 90, 95, 85: down 25 from the peak of 110 (22.7272727 %).
    expect(r.actual).toEqual({ finalPnl: '-15', returnPct: '-15', maxDrawdown: '25', maxDrawdownPct: '22.727273' });
  });

  it('sums exactly: a tenth three times is three tenths', () => {
    const r = monteCarlo(['0.1', '0.1', '0.1'], '1000.00000000', { runs: 5, seed: 1, percentiles: [5, 95] });
    expect(r.percentiles).toEqual([
      { p: 5, finalPnl: '0.3', returnPct: '0.03', maxDrawdown: '0', maxDrawdownPct: '0' },
      { p: 95, finalPnl: '0.3', returnPct: '0.03', maxDrawdown: '0', maxDrawdownPct: '0' },
    ]);
    expect(r.lossProbabilityPct).toBe('0');
  });

  it('the percentiles of a known sequence with a seed are those of the same draws counted by hand', () => {
    const runs = 2000;
    const r = monteCarlo(['1', '-1'], '100', { runs, seed: 9, percentiles: [5, 25, 50, 75, 95] });
    // The same stream: two draws a path, each 0 (+1) or 1 (-1).
    const random = new Prng(9);
    const finals: number[] = [];
    const dds: number[] = [];
    // Drawdown of each path in % of the peak: +1 +1: 0; +1 -1: 1/101; -1 +1 and -1 -1 from 100: 1 and 2.
    const ddOf: Record<string, number> = { '00': 0, '01': 100 / 101, '10': 1, '11': 2 };
    for (let i = 0; i < runs; i++) {
      const a = random.uniformBelow(2);
      const b = random.uniformBelow(2);
      finals.push((a ? -1 : 1) + (b ? -1 : 1));
      dds.push(ddOf[`${a}${b}`]!);
    }
    finals.sort((x, y) => x - y);
    dds.sort((x, y) => x - y);
    for (const p of r.percentiles) {
      expect(Number(p.finalPnl)).toBe(percentileOf(finals, p.p));
      expect(Number(p.maxDrawdownPct)).toBeCloseTo(percentileOf(dds, p.p), 6);
    }
    // With this many paths every outcome shows (-2 and 2 a quarter each, 0 a half): the tails are the extremes, the middle 0.
    expect([r.percentiles[0]!.finalPnl, r.percentiles[2]!.finalPnl, r.percentiles[4]!.finalPnl]).toEqual(['-2', '0', '2']);
    expect(r.percentiles[4]!.maxDrawdownPct).toBe('2');
    expect(Number(r.lossProbabilityPct)).toBeCloseTo((finals.filter((x) => x < 0).length * 100) / runs, 4);
    expect(r.histogram.reduce((n, b) => n + b.count, 0)).toBe(runs);
  });

  it('the same seed gives the same result; another seed another', () => {
    const trades = ['3.5', '-2.25', '1', '-4', '6', '-1.5', '0.75'];
    const a = monteCarlo(trades, '500', { runs: 300, seed: 4, percentiles: [5, 50, 95] });
    expect(monteCarlo(trades, '500', { runs: 300, seed: 4, percentiles: [5, 50, 95] })).toEqual(a);
    expect(monteCarlo(trades, '500', { runs: 300, seed: 5, percentiles: [5, 50, 95] }).histogram).not.toEqual(a.histogram);
  });

  it('no trades: nothing to resample', () => {
    const r = monteCarlo([], '100', { runs: 100, seed: 1, percentiles: [50] });
    expect(r.runs).toBe(0);
    expect(r.histogram).toEqual([]);
    expect(r.percentiles).toEqual([{ p: 50, finalPnl: '0', returnPct: '0', maxDrawdown: '0', maxDrawdownPct: '0' }]);
  });
});
