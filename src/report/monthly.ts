// Monthly returns of a backtest: the account's equity change per UTC month, from the equity samples. Each month is
// measured from the last sample before it (the first sample, for the run's first month) to its own last sample.
import { Decimal } from '../domain/decimal.js';
import type { EquityPoint } from './metrics.js';

/** One UTC month: its equity at the start and end, the change and the change in % of the start. */
export interface MonthlyReturn {
  /** "YYYY-MM". */
  month: string;
  startEquity: string;
  endEquity: string;
  pnl: string;
  returnPct: string;
}

const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/** The months the samples span, in order. */
export function monthlyReturns(points: readonly EquityPoint[]): MonthlyReturn[] {
  const out: MonthlyReturn[] = [];
  if (points.length === 0) return out;
  let base = points[0]!.equity;
  let month = monthOf(points[0]!.ts);
  let last = base;
  const close = () => {
    const pnl = last.sub(base);
    out.push({
      month,
      startEquity: base.toString(8),
      endEquity: last.toString(8),
      pnl: pnl.toString(8),
      returnPct: base.isZero() ? '0' : pnl.mul(Decimal.fromInt(100)).div(base, 4).toString(),
    });
  };
  for (const p of points) {
    const m = monthOf(p.ts);
    if (m !== month) {
      close();
      base = last;
      month = m;
    }
    last = p.equity;
  }
  close();
  return out;
}
