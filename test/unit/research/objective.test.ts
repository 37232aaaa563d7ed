// The objective: each metric read from a run, Calmar computed, too few trades and faults ranked last, exact
// comparison of money, the degradation ratio.
import { describe, expect, it } from '@jest/globals';
import type { Metrics } from '../../../src/report/metrics.js';
import { metrics } from '../../fixtures/research-runs.js';
import { calmar, compareScores, efficiency, perWindow, score, tradesNeeded, YEAR_MS } from '../../../src/research/objective.js';

const DAY = 86_400_000;

describe('score', () => {
  it('reads each metric; Calmar is the annualised strategy return over the max drawdown', () => {
    const m = metrics({ strategyPnl: '12.34567891', strategyReturnPct: '1', maxDrawdownPct: '2', sharpe: 1.5, sortino: -0.25, profitFactor: '1.75' });
    const s = (metric: 'strategyPnl' | 'sharpe' | 'sortino' | 'calmar' | 'profitFactor', windowMs = YEAR_MS) =>
      score({ metrics: m }, { metric, minTrades: 0 }, windowMs);
    expect(s('strategyPnl')).toEqual({ value: 12.34567891, text: '12.34567891', qualified: true });
    expect(s('sharpe').text).toBe('1.5');
    expect(s('sortino').value).toBe(-0.25);
    expect(s('profitFactor').value).toBe(1.75);
    // 1 % over a year, 2 % drawdown: 0.5; the same 1 % over 73 days is 5 % a year: 2.5.
    expect(s('calmar').value).toBe(0.5);
    expect(s('calmar', 73 * DAY).text).toBe('2.5');
    expect(calmar({ strategyReturnPct: '1', maxDrawdownPct: '0' }, DAY)).toBe(Infinity);
    expect(calmar({ strategyReturnPct: '-1', maxDrawdownPct: '0' }, DAY)).toBe(-Infinity);
    expect(calmar({ strategyReturnPct: '0', maxDrawdownPct: '0' }, DAY)).toBe(0);
    expect(score({ metrics: metrics({ profitFactor: 'inf' }) }, { metric: 'profitFactor', minTrades: 0 }, DAY)).toMatchObject({ value: Infinity, text: 'inf' });
  });

  it('minTrades: below it the run is not qualified; on a shorter rung it is scaled down, rounded up', () => {
    expect(score({ metrics: metrics({ trades: 4 }) }, { metric: 'sharpe', minTrades: 5 }, DAY).qualified).toBe(false);
    expect(score({ metrics: metrics({ trades: 5 }) }, { metric: 'sharpe', minTrades: 5 }, DAY).qualified).toBe(true);
    expect(tradesNeeded(10, 0.25)).toBe(3);
    expect(tradesNeeded(8, 0.25)).toBe(2);
    expect(score({ metrics: metrics({ trades: 3 }) }, { metric: 'sharpe', minTrades: 10 }, DAY, 0.25).qualified).toBe(true);
    expect(score({ metrics: metrics({ trades: 2 }) }, { metric: 'sharpe', minTrades: 10 }, DAY, 0.25).qualified).toBe(false);
  });
});

describe('ranking', () => {
  const ranked = (metric: 'strategyPnl' | 'sharpe', runs: Array<{ m: Partial<Metrics>; fault?: string }>, minTrades = 0) =>
    runs
      .map((r, index) => ({ ...score({ metrics: metrics(r.m), ...(r.fault ? { fault: r.fault } : {}) }, { metric, minTrades }, DAY), index }))
      .sort((a, b) => compareScores(metric, a, b))
      .map((s) => s.index);

  it('best score first; too few trades after every qualified one (however good); faults last; ties by candidate order', () => {
    expect(
      ranked(
        'sharpe',
        [
          { m: { sharpe: 1 } },
          { m: { sharpe: 9, trades: 1 } },
          { m: { sharpe: 3 } },
          { m: { sharpe: 50 }, fault: 'boom' },
          { m: { sharpe: 1 } },
          { m: { sharpe: -2, trades: 0 } },
        ],
        2,
      ),
    ).toEqual([2, 0, 4, 1, 5, 3]);
  });

  it('money compares exactly (digits a float would lose)', () => {
    expect(ranked('strategyPnl', [{ m: { strategyPnl: '90071992547409.91' } }, { m: { strategyPnl: '90071992547409.92' } }])).toEqual([1, 0]);
  });
});

describe('degradation', () => {
  it('PnL per day in and out of sample; ratios as they are; out / in when in is above 0', () => {
    const s = score({ metrics: metrics({ strategyPnl: '30' }) }, { metric: 'strategyPnl', minTrades: 0 }, DAY);
    expect(perWindow('strategyPnl', s, 10 * DAY)).toBe(3);
    expect(perWindow('sharpe', { ...s, value: 1.2 }, 10 * DAY)).toBe(1.2);
    expect(efficiency(3, 1.5)).toBe(0.5);
    expect(efficiency(3, -3)).toBe(-1);
    expect(efficiency(0, 1)).toBeNull();
    expect(efficiency(-1, 1)).toBeNull();
    expect(efficiency(Infinity, 1)).toBeNull();
  });
});
