// Parameter sweeps: every combination of a grid of strategy params, each a full backtest, run in worker
// threads on all cores, ranked by the strategy's PnL (what the trading earned, apart from the starting holdings' move).
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { writeFileSync } from 'node:fs';
import type { SweepSpec } from '../config/sweep-spec.js';
import { Decimal } from '../domain/decimal.js';
import type { Metrics } from '../report/metrics.js';

/** Every combination of the grid, in a stable order. */
export function combinations(params: Record<string, unknown[]>): Array<Record<string, unknown>> {
  let out: Array<Record<string, unknown>> = [{}];
  for (const [name, values] of Object.entries(params)) out = out.flatMap((combo) => values.map((value) => ({ ...combo, [name]: value })));
  return out;
}

export interface SweepRow {
  rank: number;
  params: Record<string, unknown>;
  metrics: Metrics;
  outDir: string;
  /** The strategy faulted in this run: ranked after every run that did not. */
  fault?: string;
}

export async function runSweep(configFile: string, spec: SweepSpec, outDir: string, range: { dataFile?: string; fromMs?: number; toMs?: number } = {}, threads = availableParallelism()): Promise<SweepRow[]> {
  const combos = combinations(spec.params);
  const results: Array<{ params: Record<string, unknown>; metrics: Metrics; outDir: string; fault?: string }> = [];
  let next = 0;
  const workerUrl = new URL('./sweep-worker.js', import.meta.url);
  const runOne = (): Promise<void> => {
    const index = next++;
    if (index >= combos.length) return Promise.resolve();
    const params = combos[index]!;
    const dir = join(outDir, `run-${String(index + 1).padStart(3, '0')}`);
    return new Promise<void>((resolve, reject) => {
      const worker = new Worker(workerUrl, { workerData: { configFile, strategy: spec.strategy, params, outDir: dir, range } });
      worker.once('message', (reply: { metrics?: Metrics; error?: string; fault?: string }) => {
        if (reply.error) reject(new Error(`${JSON.stringify(params)}: ${reply.error}`));
        else results[index] = { params, metrics: reply.metrics!, outDir: dir, ...(reply.fault ? { fault: reply.fault } : {}) };
      });
      worker.once('error', reject);
      worker.once('exit', () => resolve());
    }).then(runOne);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(threads, combos.length)) }, runOne));
  const ranked = results
    .map((result, index) => ({ ...result, index }))
    .sort((a, b) => Number(!!a.fault) - Number(!!b.fault) || Decimal.from(b.metrics.strategyPnl).cmp(Decimal.from(a.metrics.strategyPnl)) || a.index - b.index)
    .map((result, position): SweepRow => ({ rank: position + 1, params: result.params, metrics: result.metrics, outDir: result.outDir, ...(result.fault ? { fault: result.fault } : {}) }));
  const names = Object.keys(spec.params);
  writeFileSync(
    join(outDir, 'sweep.csv'),
    [['rank', ...names, 'strategy_pnl', 'strategy_return_pct', 'buy_and_hold_pnl', 'max_drawdown_pct', 'sharpe', 'fills', 'fees', 'dir', 'fault'].join(','),
      ...ranked.map((row) => {
        const metrics = row.metrics;
        return [row.rank, ...names.map((name) => String(row.params[name])), metrics.strategyPnl, metrics.strategyReturnPct, metrics.buyAndHoldPnl, metrics.maxDrawdownPct, metrics.sharpe, metrics.fills, metrics.feesPaid, row.outDir, row.fault ? `"${row.fault.replace(/"/g, '""')}"` : ''].join(',');
      })].join('\n') + '\n',
  );
  return ranked;
}
