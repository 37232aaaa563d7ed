// The objective an optimisation ranks candidates by: the strategy's PnL, Sharpe, Sortino, Calmar (annualised
// strategy return over the account's max drawdown) or profit factor, from a run's metrics. A candidate with fewer
// closing fills than asked ranks after every one with enough; a faulted run after all of them.
import type { ObjectiveName } from '../config/optimize-spec.js';
import { Decimal } from '../domain/decimal.js';
import type { Metrics } from '../report/metrics.js';

export const YEAR_MS = 365 * 24 * 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;

export interface Objective {
  metric: ObjectiveName;
  minTrades: number;
}

export interface Score {
  /** For ordering (may be ±Infinity: a profit factor with no loss, a Calmar ratio with no drawdown). */
  value: number;
  /** As written to files: the exact decimal for money, six decimals for ratios, `inf` / `-inf`. */
  text: string;
  /** Enough closing fills for the window it ran on. */
  qualified: boolean;
  /** The strategy faulted in this run. */
  fault?: string;
}

/** Closed round trips a run on `share` of the full window must have: minTrades scaled to its length, rounded up. */
export const tradesNeeded = (minTrades: number, share = 1) => Math.ceil(minTrades * share - 1e-9);

export function numberText(x: number): string {
  if (Number.isNaN(x)) return 'n/a';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const rounded = Math.round(x * 1e6) / 1e6;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/** Calmar: the strategy's return (% of starting equity) annualised over the window, over the max drawdown (%). */
export function calmar(metrics: Pick<Metrics, 'strategyReturnPct' | 'maxDrawdownPct'>, windowMs: number): number {
  const annual = (Number(metrics.strategyReturnPct) * YEAR_MS) / windowMs;
  const dd = Number(metrics.maxDrawdownPct);
  if (dd === 0) return annual > 0 ? Infinity : annual < 0 ? -Infinity : 0;
  return annual / dd;
}

/**
 * The objective's value for a run's metrics over a window of `windowMs`; `share` is the window's part of the full
 * in-sample window (successive halving's early rungs), which scales minTrades.
 */
export function score(run: { metrics: Metrics; fault?: string }, objective: Objective, windowMs: number, share = 1): Score {
  const m = run.metrics;
  let value: number;
  let text: string;
  switch (objective.metric) {
    case 'strategyPnl':
      text = m.strategyPnl;
      value = Number(text);
      break;
    case 'sharpe':
    case 'sortino':
      value = m[objective.metric];
      text = numberText(value);
      break;
    case 'profitFactor':
      value = m.profitFactor === 'inf' ? Infinity : Number(m.profitFactor);
      text = m.profitFactor;
      break;
    case 'calmar':
      value = calmar(m, windowMs);
      text = numberText(value);
      break;
  }
  return { value, text, qualified: m.trades >= tradesNeeded(objective.minTrades, share), ...(run.fault ? { fault: run.fault } : {}) };
}

/** Best first: runs that did not fault, with enough trades, by score (exact for money), then the earlier candidate. */
export function compareScores(metric: ObjectiveName, a: Score & { index: number }, b: Score & { index: number }): number {
  const byValue = () => {
    if (metric === 'strategyPnl') return Decimal.from(b.text).cmp(Decimal.from(a.text));
    if (a.value === b.value) return 0;
    return b.value > a.value ? 1 : -1;
  };
  return Number(!!a.fault) - Number(!!b.fault) || Number(!a.qualified) - Number(!b.qualified) || byValue() || a.index - b.index;
}

/**
 * The objective made comparable between windows of different lengths (for the degradation out of sample): the
 * strategy's PnL per day; the ratios as they are (Sharpe, Sortino and Calmar are annualised already).
 */
export function perWindow(metric: ObjectiveName, s: Score, windowMs: number): number {
  return metric === 'strategyPnl' ? (s.value * DAY_MS) / windowMs : s.value;
}

/**
 * Out-of-sample over in-sample (both per window as above): 1 kept all its edge, 0 none, below 0 lost; null when
 * the in-sample value is not above 0 or either is not finite (no ratio means anything then).
 */
export function efficiency(inSample: number, outOfSample: number): number | null {
  if (!Number.isFinite(inSample) || !Number.isFinite(outOfSample) || inSample <= 0) return null;
  return outOfSample / inSample;
}
