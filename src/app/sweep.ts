// Parameter sweeps: every combination of a grid of strategy params, each a full backtest, run in worker
// threads on all cores, ranked by the strategy's PnL (what the trading earned, apart from the starting holdings' move).
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { parse } from 'yaml';
import { readFileSync, writeFileSync } from 'node:fs';
import { Decimal } from '../domain/decimal.js';
import type { Metrics } from '../report/metrics.js';

export interface SweepSpec {
  /** The strategy instance (id) whose params vary. */
  strategy: string;
  /** Param name -> the values to try. */
  params: Record<string, unknown[]>;
}

export function readSweep(file: string): SweepSpec {
  const s = parse(readFileSync(file, 'utf8')) as Partial<SweepSpec> | null;
  if (!s || typeof s.strategy !== 'string' || typeof s.params !== 'object' || s.params === null) {
    throw new Error(`${file}: expected {strategy: <id>, params: {<name>: [values...]}}`);
  }
  for (const [k, v] of Object.entries(s.params)) if (!Array.isArray(v) || v.length === 0) throw new Error(`${file}: params.${k} must be a non-empty list`);
  return s as SweepSpec;
}

/** Every combination of the grid, in a stable order. */
export function combinations(params: Record<string, unknown[]>): Array<Record<string, unknown>> {
  let out: Array<Record<string, unknown>> = [{}];
  for (const [k, values] of Object.entries(params)) out = out.flatMap((c) => values.map((v) => ({ ...c, [k]: v })));
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
  const worker = new URL('./sweep-worker.js', import.meta.url);
  const runOne = (): Promise<void> => {
    const i = next++;
    if (i >= combos.length) return Promise.resolve();
    const params = combos[i]!;
    const dir = join(outDir, `run-${String(i + 1).padStart(3, '0')}`);
    return new Promise<void>((resolve, reject) => {
      const w = new Worker(worker, { workerData: { configFile, strategy: spec.strategy, params, outDir: dir, range } });
      w.once('message', (m: { metrics?: Metrics; error?: string; fault?: string }) => {
        if (m.error) reject(new Error(`${JSON.stringify(params)}: ${m.error}`));
        else results[i] = { params, metrics: m.metrics!, outDir: dir, ...(m.fault ? { fault: m.fault } : {}) };
      });
      w.once('error', reject);
      w.once('exit', () => resolve());
    }).then(runOne);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(threads, combos.length)) }, runOne));
  const ranked = results
    .map((r, i) => ({ ...r, i }))
    .sort((a, b) => Number(!!a.fault) - Number(!!b.fault) || Decimal.from(b.metrics.strategyPnl).cmp(Decimal.from(a.metrics.strategyPnl)) || a.i - b.i)
    .map((r, k): SweepRow => ({ rank: k + 1, params: r.params, metrics: r.metrics, outDir: r.outDir, ...(r.fault ? { fault: r.fault } : {}) }));
  const names = Object.keys(spec.params);
  writeFileSync(
    join(outDir, 'sweep.csv'),
    [['rank', ...names, 'strategy_pnl', 'strategy_return_pct', 'buy_and_hold_pnl', 'max_drawdown_pct', 'sharpe', 'fills', 'fees', 'dir', 'fault'].join(','),
      ...ranked.map((r) => {
        const m = r.metrics;
        return [r.rank, ...names.map((n) => String(r.params[n])), m.strategyPnl, m.strategyReturnPct, m.buyAndHoldPnl, m.maxDrawdownPct, m.sharpe, m.fills, m.feesPaid, r.outDir, r.fault ? `"${r.fault.replace(/"/g, '""')}"` : ''].join(',');
      })].join('\n') + '\n',
  );
  return ranked;
}
