// Parameter sweeps: every combination of a grid of strategy params, each a full backtest run by a JobRunner (worker
// threads here, or workers on a queue), ranked by the strategy's PnL (what the trading earned, apart from the
// starting holdings' move), written to sweep.csv. Where the runs ran changes nothing in what is written.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SweepSpec } from '../config/sweep-spec.js';
import { Decimal } from '../domain/decimal.js';
import type { Metrics } from '../report/metrics.js';
import { sha256File } from '../util/file-hash.js';
import type { BacktestJob, JobRange, JobResult, JobRunner } from './jobs.js';

/** Every combination of the grid, in a stable order. */
export function combinations(params: Record<string, unknown[]>): Array<Record<string, unknown>> {
  let out: Array<Record<string, unknown>> = [{}];
  for (const [name, values] of Object.entries(params)) out = out.flatMap((combo) => values.map((value) => ({ ...combo, [name]: value })));
  return out;
}

export interface SweepPlan {
  configFile: string;
  spec: SweepSpec;
  /** The sweep's folder: sweep.csv, and each run's files in run-NNN/. */
  outDir: string;
  range?: JobRange;
  /** The data files the runs read (the replayed file, funding files): a worker whose copies differ refuses. */
  dataFiles: readonly string[];
  /** The strategy's module file (likewise checked by the worker). */
  strategyFiles?: readonly string[];
}

export interface SweepRow {
  rank: number;
  params: Record<string, unknown>;
  metrics: Metrics;
  /** The run's files, relative to the sweep's folder. */
  dir: string;
  /** The strategy faulted in this run: ranked after every run that did not. */
  fault?: string;
}

const runDir = (index: number) => `run-${String(index + 1).padStart(3, '0')}`;

/** The sweep's jobs: the config by absolute path, and the hashes of the files as they are here. */
export async function sweepJobs(plan: SweepPlan): Promise<BacktestJob[]> {
  const configFile = resolve(plan.configFile);
  const configHash = await sha256File(configFile);
  const dataHashes: Record<string, string> = {};
  for (const file of plan.dataFiles) dataHashes[file] = await sha256File(file);
  const strategyHashes: Record<string, string> = {};
  for (const file of plan.strategyFiles ?? []) strategyHashes[file] = await sha256File(file);
  const outDir = resolve(plan.outDir);
  return combinations(plan.spec.params).map((params, index) => ({
    id: runDir(index),
    configFile,
    configHash,
    strategy: plan.spec.strategy,
    params,
    range: plan.range ?? {},
    dataHashes,
    strategyHashes,
    outDir: join(outDir, runDir(index)),
  }));
}

/** Ranks the results (of the jobs of `sweepJobs`, in their order): faulted runs last, then by strategy PnL, then grid order. */
export function rankSweep(spec: SweepSpec, results: readonly JobResult[]): SweepRow[] {
  const combos = combinations(spec.params);
  return results
    .map((result, index) => ({ result, index }))
    .sort(
      (a, b) =>
        Number(!!a.result.fault) - Number(!!b.result.fault) ||
        Decimal.from(b.result.metrics.strategyPnl).cmp(Decimal.from(a.result.metrics.strategyPnl)) ||
        a.index - b.index,
    )
    .map(({ result, index }, position): SweepRow => ({
      rank: position + 1,
      params: combos[index]!,
      metrics: result.metrics,
      dir: runDir(index),
      ...(result.fault ? { fault: result.fault } : {}),
    }));
}

/** sweep.csv: one line per run, best first. */
export function sweepCsv(spec: SweepSpec, rows: readonly SweepRow[]): string {
  const names = Object.keys(spec.params);
  const quoted = (text: string) => `"${text.replace(/"/g, '""')}"`;
  return (
    [
      [
        'rank',
        ...names,
        'strategy_pnl',
        'strategy_return_pct',
        'buy_and_hold_pnl',
        'max_drawdown_pct',
        'sharpe',
        'sortino',
        'fills',
        'trades',
        'win_rate_pct',
        'profit_factor',
        'fees',
        'dir',
        'fault',
      ].join(','),
      ...rows.map((row) => {
        const m = row.metrics;
        return [
          row.rank,
          ...names.map((name) => String(row.params[name])),
          m.strategyPnl,
          m.strategyReturnPct,
          m.buyAndHoldPnl,
          m.maxDrawdownPct,
          m.sharpe,
          m.sortino,
          m.fills,
          m.trades,
          m.winRatePct,
          m.profitFactor,
          m.feesPaid,
          row.dir,
          row.fault ? quoted(row.fault) : '',
        ].join(',');
      }),
    ].join('\n') + '\n'
  );
}

/** Runs the sweep on `runner`, writes sweep.csv in its folder and returns the ranked rows. */
export async function runSweep(plan: SweepPlan, runner: JobRunner, onProgress?: (done: number, total: number) => void): Promise<SweepRow[]> {
  const jobs = await sweepJobs(plan);
  const results = await runner.run(jobs, onProgress);
  for (let i = 0; i < jobs.length; i++) if (results[i]?.id !== jobs[i]!.id) throw new Error(`the runner gave no result for ${jobs[i]!.id} in its place`);
  const rows = rankSweep(plan.spec, results);
  writeFileSync(join(plan.outDir, 'sweep.csv'), sweepCsv(plan.spec, rows));
  return rows;
}
