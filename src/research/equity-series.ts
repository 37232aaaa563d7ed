// Equity series of research runs ([ms, equity as decimal text] samples): the out-of-sample windows stitched into
// one path, and that path's max drawdown.
import { Decimal } from '../domain/decimal.js';
import { computeMetrics } from '../report/metrics.js';

/**
 * One path from consecutive windows' equity: each window's changes added to where the previous one ended (every
 * window starts a fresh account, so its own level is not carried over).
 */
export function stitchEquity(parts: ReadonlyArray<ReadonlyArray<readonly [number, string]>>): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  let level: Decimal | null = null;
  for (const part of parts) {
    if (part.length === 0) continue;
    const start = Decimal.from(part[0]![1]);
    const base: Decimal = level ?? start;
    for (const [ms, equity] of part) {
      const value = base.add(Decimal.from(equity).sub(start));
      // Windows touch at their edges: a sample at or before the last one replaces it.
      while (out.length && out[out.length - 1]![0] >= ms) out.pop();
      out.push([ms, value.toString()]);
    }
    level = Decimal.from(out[out.length - 1]![1]);
  }
  return out;
}

/** The max drawdown (% of the peak) of a series of strategy equity (a run's collected equity), as the backtest's metrics count it. */
export function seriesDrawdownPct(series: ReadonlyArray<readonly [number, string]>): string {
  // The series is the strategy's equity already: a constant buy-and-hold leaves it as it is.
  const hold = Decimal.from(series[0]?.[1] ?? '0');
  const points = series.map(([ts, e]) => ({ ts, equity: Decimal.from(e), hold }));
  return computeMetrics({ equity: points, executions: [], exposed: [], sampleMs: 1000 }).maxDrawdownPct;
}
