// The files a backtest writes: report.json (every figure), trades.csv, equity.csv and report.html.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderReport } from './html.js';
import type { EquityPoint, Metrics, StrategyPnl, TradeRow } from './metrics.js';

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
  strategies: Array<{ id: string; name: string; symbols: string[]; params: unknown; pnl: StrategyPnl; errors: number; rejected: Record<string, number> }>;
  faults: BacktestFault[];
  latencyMs: number;
  sampleMs: number;
  metrics: Metrics;
  orders: Record<string, number>;
  rejected: Record<string, number>;
  denied: Record<string, number>;
  simulated: { ticks: number; fills: number; requests: number; weight: Record<string, number>; rateLimited429: number; pollsSkipped: number };
}

export function writeBacktestFiles(outDir: string, report: BacktestReport, trades: TradeRow[], equity: EquityPoint[], prices: Record<string, Array<[number, number]>>, title: string): void {
  writeFileSync(join(outDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(
    join(outDir, 'trades.csv'),
    ['ts,symbol,order_id,fill_id,side,price,size,amount,fee,realized_pnl', ...trades.map((t) => [t.timestampMs, t.symbol, t.orderId, t.fillId, t.side, t.price, t.size, t.amount, t.fee, t.realizedPnl].join(','))].join('\n') + '\n',
  );
  writeFileSync(join(outDir, 'equity.csv'), ['ts,equity,buy_and_hold', ...equity.map((p) => `${p.ts},${p.equity.toString(8)},${p.hold.toString(8)}`)].join('\n') + '\n');
  // The charts take one point per second.
  const equityChart: Array<[number, number]> = [];
  const holdChart: Array<[number, number]> = [];
  for (const p of equity) {
    const sec = Math.floor(p.ts / 1000);
    if (equityChart.length === 0 || equityChart[equityChart.length - 1]![0] < sec) {
      equityChart.push([sec, p.equity.toNumber()]);
      holdChart.push([sec, p.hold.toNumber()]);
    }
  }
  const sim = report.simulated;
  writeFileSync(
    join(outDir, 'report.html'),
    renderReport({
      title, metrics: report.metrics, orders: report.orders, rejected: report.rejected, denied: report.denied, prices, equity: equityChart, hold: holdChart,
      strategies: report.strategies.map((s) => ({ id: s.id, pnl: s.pnl.pnl, fills: s.pnl.fills, errors: s.errors })),
      faults: report.faults,
      venue: {
        'round trip (ms)': report.latencyMs, requests: sim.requests,
        ...Object.fromEntries(Object.entries(sim.weight).map(([pool, w]) => [`weight used ${pool}`, w])),
        '429s simulated': sim.rateLimited429, 'polls skipped': sim.pollsSkipped,
      },
      fills: trades.map((t) => ({ symbol: t.symbol, time: Math.floor(t.timestampMs / 1000), side: t.side, price: t.price.toNumber(), size: t.size.toString() })),
    }),
  );
}
