// The files a backtest writes: report.json (every figure, the round trips and monthly returns), trades.csv (fills,
// liquidations and funding), round-trips.csv (the trade list), equity.csv (with the margin rate in a run that trades
// futures) and report.html. The trade list, the executions and the equity lines come as the run spilled them (the
// first two grow with its fills): they are copied or moved into place, never held whole.
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Decimal } from '../domain/decimal.js';
import type { EquityCsv } from './equity-csv.js';
import type { FuturesReport, TradeCsvRow } from './futures.js';
import { renderReport, type Marker } from './html.js';
import type { EquityPoint, Metrics, StrategyPnl } from './metrics.js';
import type { MonthlyReturn } from './monthly.js';
import type { TradeStats } from './metrics.js';
import type { RoundTrip } from './round-trips.js';
import { writeAll, type SpillFile } from './spill-file.js';
import { writeTradesCsv } from './trades-csv.js';
import type { TripLog } from './trip-log.js';

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

/**
 * How old a reference price could be before it priced no order (backtest.staleness): risk.staleAfterMs, and the
 * symbols whose data's own cadence set a longer limit (candles: a price move every quarter candle).
 */
export interface BacktestStaleness {
  rule: 'data-cadence' | 'risk';
  staleAfterMs: number;
  bySymbol: Record<string, { data: string; staleAfterMs: number }>;
}

/** report.json: what was replayed, per strategy, the metrics, and what the simulated venue saw. */
export interface BacktestReport {
  /** The version of sextant that ran it. */
  version: string;
  data: { file: string; records: number; fromMs: number; toMs: number };
  strategies: Array<{
    id: string;
    name: string;
    symbols: string[];
    params: unknown;
    pnl: StrategyPnl;
    trades: TradeStats;
    errors: number;
    rejected: Record<string, number>;
  }>;
  faults: BacktestFault[];
  latencyMs: number;
  /** How resting orders filled (config sim.fills: queue, touch or through). */
  fillModel: string;
  sampleMs: number;
  staleness: BacktestStaleness;
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

/** What a run spilled or counted for its files besides the report's figures. */
export interface BacktestFileParts {
  /** The trade list: report.json's `trades`, round-trips.csv, the page's newest trades. */
  trips: TripLog;
  /** trades.csv as the run wrote it (the header and the executions' lines), and the funding rows to merge in. */
  executions: SpillFile;
  funding: readonly TradeCsvRow[];
  /** The price charts' fill markers, per symbol. */
  markers: Record<string, Marker[]>;
  /** equity.csv as the run wrote it (with every sample of `equity`). */
  equityCsv: EquityCsv;
}

/** report.json: the report as JSON.stringify(report, null, 2) writes it, its `trades` (the last field) from the list. */
export function writeReportJson(file: string, report: object, trips: TripLog): void {
  const text = JSON.stringify({ ...report, trades: [] }, null, 2);
  if (trips.count === 0) return writeFileSync(file, `${text}\n`);
  const empty = '[]\n}';
  if (!text.endsWith(empty)) throw new Error('report.json: the trade list must be the last field');
  const fd = openSync(file, 'w');
  try {
    writeAll(fd, Buffer.from(`${text.slice(0, -empty.length)}[\n`, 'utf8'));
    trips.writeJsonItems(fd);
    writeAll(fd, Buffer.from('\n  ]\n}\n', 'utf8'));
  } finally {
    closeSync(fd);
  }
}

export function writeBacktestFiles(
  outDir: string,
  report: Omit<BacktestReport, 'trades'>,
  parts: BacktestFileParts,
  equity: EquityPoint[],
  prices: Record<string, Array<[number, number]>>,
  title: string,
): void {
  const futures = report.futures !== undefined;
  const { trips } = parts;
  writeReportJson(join(outDir, 'report.json'), report, trips);
  writeTradesCsv(join(outDir, 'trades.csv'), parts.executions, parts.funding);
  trips.writeCsv(join(outDir, 'round-trips.csv'));
  parts.equityCsv.take(equity);
  parts.equityCsv.moveTo(join(outDir, 'equity.csv'));
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
  const sim = report.simulated;
  writeFileSync(
    join(outDir, 'report.html'),
    renderReport({
      title,
      period: { fromMs: report.data.fromMs, toMs: report.data.toMs },
      metrics: report.metrics,
      orders: report.orders,
      rejected: report.rejected,
      denied: report.denied,
      prices,
      equity: equityChart,
      hold: holdChart,
      strategies: report.strategies.map((s) => ({
        id: s.id,
        pnl: s.pnl.pnl,
        realized: s.pnl.realized,
        unrealized: s.pnl.unrealized,
        fees: s.pnl.fees,
        funding: s.pnl.funding,
        fills: s.pnl.fills,
        trades: s.trades.trades,
        winRatePct: s.trades.winRatePct,
        profitFactor: s.trades.profitFactor,
        errors: s.errors,
      })),
      trades: trips.newest(),
      tradeCount: trips.count,
      monthly: report.monthly,
      faults: report.faults,
      venue: {
        'sextant version': report.version,
        'round trip (ms)': report.latencyMs,
        'resting orders fill': report.fillModel,
        'stale after (ms)': report.staleness.staleAfterMs,
        ...Object.fromEntries(Object.entries(report.staleness.bySymbol).map(([symbol, x]) => [`stale after (ms) ${symbol}, ${x.data}`, x.staleAfterMs])),
        requests: sim.requests,
        ...Object.fromEntries(Object.entries(sim.weight).map(([pool, w]) => [`weight used ${pool}`, w])),
        '429s simulated': sim.rateLimited429,
        'polls skipped': sim.pollsSkipped,
      },
      markers: parts.markers,
      ...(report.futures ? { futures: { report: report.futures, margin: marginChart } } : {}),
    }),
  );
}
