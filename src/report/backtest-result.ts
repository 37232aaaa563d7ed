// What a backtest run returns and the lines a command prints of it; a run whose strategies faulted fails with it.
import type { BacktestFault, BacktestStaleness } from './backtest-files.js';
import type { Metrics } from './metrics.js';
import { metricText } from './html-tables.js';
import { describeCounts } from './rejections.js';

export interface BacktestResult {
  outDir: string;
  metrics: Metrics;
  events: number;
  orders: Record<string, number>;
  /** Orders the venue refused, by reason (post-only, insufficient...); strategies[].rejected splits them. */
  rejected: Record<string, number>;
  /** Orders and cancels the risk gate or the executor denied, by reason. */
  denied: Record<string, number>;
  /** Strategies that faulted: the run failed (runBacktest throws a BacktestFaultError carrying this result). */
  faults: BacktestFault[];
  requests: number;
  rateLimited: number;
  /** The limits on a reference price's age that applied (backtest.staleness). */
  staleness: BacktestStaleness;
  /** Wall time of the phases: reading the data, the replay itself, writing the report. */
  timings: { loadMs: number; runMs: number; reportMs: number };
  /** What the run was asked to collect (BacktestOptions.collect). */
  collected?: {
    /** Closed round trips' PnL (fees included), in the order they opened. */
    tradePnls?: string[];
    /** [ms, equity] samples. */
    equity?: Array<[number, string]>;
    /** Every intent, with the virtual time it was made and its strategy; the intent as JSON. */
    decisions?: Array<{ ts: number; strategy: string; intent: string }>;
  };
}

/** A run whose strategies faulted: its report is written, the run failed. */
export class BacktestFaultError extends Error {
  constructor(readonly result: BacktestResult) {
    super(result.faults.map((f) => `strategy ${f.strategy} faulted at ${f.at}: ${f.reason}`).join('; ') + ` (report in ${result.outDir})`);
  }
}

/** The lines a command prints after a run. */
export function backtestSummary(r: BacktestResult): string[] {
  const m = r.metrics;
  return [
    `${r.events} market events, ${r.requests} requests (${r.rateLimited} answered 429) -> ${r.outDir}`,
    `strategy PnL ${metricText(m, 'strategyPnl')} (${m.strategyReturnPct} %) vs buy-and-hold ${metricText(m, 'buyAndHoldPnl')} (${m.buyAndHoldReturnPct} %), max drawdown ${m.maxDrawdownPct} %, Sharpe ${m.sharpe} (${m.ratioBasis}), fills ${m.fills}, round trips ${m.trades} (win rate ${m.winRatePct} %, profit factor ${m.profitFactor}), fees ${metricText(m, 'feesPaid')}, rejected: ${describeCounts(r.rejected)}, denied: ${describeCounts(r.denied)}`,
    stalenessLine(r.staleness),
  ];
}

/** Which limit on a reference price's age applied: `stale prices: …`. */
export function stalenessLine(s: BacktestStaleness): string {
  const own = Object.entries(s.bySymbol).map(([symbol, x]) => `${symbol} (${x.data}) after ${x.staleAfterMs} ms`);
  const base = `risk.staleAfterMs ${s.staleAfterMs} ms`;
  if (own.length === 0) return `stale prices: ${base}${s.rule === 'data-cadence' ? ' (no candle data: judged as live)' : ' (backtest.staleness: risk)'}`;
  return `stale prices: by the data's cadence, ${own.join(', ')}; other symbols ${base}`;
}
