// The files a backtest writes: report.json (every figure, the round trips and monthly returns), trades.csv (fills,
// liquidations and funding), round-trips.csv (the trade list), equity.csv (with the margin rate in a run that trades
// futures) and report.html.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Decimal } from '../domain/decimal.js';
import type { FuturesReport, TradeCsvRow } from './futures.js';
import { renderReport } from './html.js';
import type { EquityPoint, Metrics, StrategyPnl } from './metrics.js';
import type { MonthlyReturn } from './monthly.js';
import { ROUND_TRIPS_CSV_HEADER, roundTripCsvLine, type RoundTrip, type TradeStats } from './round-trips.js';

/** A strategy that faulted during a run: its id, when (virtual time), and why. */
export interface BacktestFault {
  strategy: string;
  atMs: number;
  /** atMs as an ISO time. */
  at: string;
  hook: string;
  error: string;
  reason: string;
}

/** report.json: what was replayed, per strategy, the metrics, and what the simulated venue saw. */
export interface BacktestReport {
  data: { file: string; records: number; fromMs: number; toMs: number };
  strategies: Array<{ id: string; name: string; symbols: string[]; params: unknown; pnl: StrategyPnl; trades: TradeStats; errors: number; rejected: Record<string, number> }>;
  faults: BacktestFault[];
  latencyMs: number;
  sampleMs: number;
  metrics: Metrics;
  orders: Record<string, number>;
  rejected: Record<string, number>;
  denied: Record<string, number>;
  simulated: { ticks: number; fills: number; requests: number; weight: Record<string, number>; rateLimited429: number; pollsSkipped: number };
  /** Funding, liquidations, fees by kind and the margin rate: only in a run that trades futures. */
  futures?: FuturesReport;
  /** The account's equity change per UTC month. */
  monthly: MonthlyReturn[];
  /** Every round trip, in order of entry. */
  trades: RoundTrip[];
}

/**
 * trades.csv's columns: those of a fill, then the row's kind (fill, liquidation or funding), the position side
 * (futures) and a funding row's rate.
 */
export const TRADES_CSV_HEADER = 'ts,symbol,order_id,fill_id,side,price,size,amount,fee,realized_pnl,kind,position_side,rate';

/**
 * A trades.csv line. A fill or a liquidation's close: the execution with its realised PnL at average cost, fees
 * included, and the position side (futures). A funding settlement: its signed amount (a change of collateral:
 * negative when paid) as amount and realised PnL, no fee, the rate where it is certain and the side it implies.
 */
function tradesCsvLine(r: TradeCsvRow): string {
  if (r.kind === 'funding') return [r.timestampMs, r.symbol, '', '', '', '', '', r.amount, '0', r.amount, r.kind, r.positionSide ?? '', r.rate ?? ''].join(',');
  const t = r.trade;
  return [t.timestampMs, t.symbol, t.orderId, t.fillId, t.side, t.price, t.size, t.amount, t.fee, t.realizedPnl, r.kind, r.positionSide ?? '', ''].join(',');
}

/** A rate in equity.csv: empty while flat. */
const rateText = (x: Decimal | null | undefined) => (x ? x.toString() : '');

export function writeBacktestFiles(outDir: string, report: BacktestReport, rows: TradeCsvRow[], equity: EquityPoint[], prices: Record<string, Array<[number, number]>>, title: string): void {
  const futures = report.futures !== undefined;
  writeFileSync(join(outDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outDir, 'trades.csv'), [TRADES_CSV_HEADER, ...rows.map(tradesCsvLine)].join('\n') + '\n');
  writeFileSync(join(outDir, 'round-trips.csv'), [ROUND_TRIPS_CSV_HEADER, ...report.trades.map(roundTripCsvLine)].join('\n') + '\n');
  writeFileSync(
    join(outDir, 'equity.csv'),
    [
      futures ? 'ts,equity,buy_and_hold,margin_rate,maintenance_rate' : 'ts,equity,buy_and_hold',
      ...equity.map((p) => `${p.ts},${p.equity.toString(8)},${p.hold.toString(8)}${futures ? `,${rateText(p.marginRate)},${rateText(p.maintenanceRate)}` : ''}`),
    ].join('\n') + '\n',
  );
  // The charts take one point per second; rates in percent, null while flat.
  const equityChart: Array<[number, number]> = [];
  const holdChart: Array<[number, number]> = [];
  const marginChart: Array<[number, number | null, number | null]> = [];
  const pct = (x: Decimal | null | undefined) => (x ? x.toNumber() * 100 : null);
  for (const p of equity) {
    const sec = Math.floor(p.ts / 1000);
    if (equityChart.length === 0 || equityChart[equityChart.length - 1]![0] < sec) {
      equityChart.push([sec, p.equity.toNumber()]);
      holdChart.push([sec, p.hold.toNumber()]);
      if (futures) marginChart.push([sec, pct(p.marginRate), pct(p.maintenanceRate)]);
    }
  }
  const executions = rows.flatMap((r) => (r.kind === 'funding' ? [] : [r.trade]));
  const sim = report.simulated;
  writeFileSync(
    join(outDir, 'report.html'),
    renderReport({
      title, period: { fromMs: report.data.fromMs, toMs: report.data.toMs }, metrics: report.metrics, orders: report.orders, rejected: report.rejected, denied: report.denied, prices, equity: equityChart, hold: holdChart,
      strategies: report.strategies.map((s) => ({
        id: s.id, pnl: s.pnl.pnl, realized: s.pnl.realized, unrealized: s.pnl.unrealized, fees: s.pnl.fees, funding: s.pnl.funding, fills: s.pnl.fills,
        trades: s.trades.trades, winRatePct: s.trades.winRatePct, profitFactor: s.trades.profitFactor, errors: s.errors,
      })),
      trades: report.trades, monthly: report.monthly,
      faults: report.faults,
      venue: {
        'round trip (ms)': report.latencyMs, requests: sim.requests,
        ...Object.fromEntries(Object.entries(sim.weight).map(([pool, w]) => [`weight used ${pool}`, w])),
        '429s simulated': sim.rateLimited429, 'polls skipped': sim.pollsSkipped,
      },
      fills: executions.map((t) => ({ symbol: t.symbol, time: Math.floor(t.timestampMs / 1000), side: t.side, price: t.price.toNumber(), size: t.size.toString() })),
      ...(report.futures ? { futures: { report: report.futures, margin: marginChart } } : {}),
    }),
  );
}
