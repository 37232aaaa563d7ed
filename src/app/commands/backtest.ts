// `sextant backtest [--sweep <file>]`: one replay in virtual time, or a sweep of strategy params ranked by PnL.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { ConfigError, type LoadedConfig } from '../../config/load.js';
import { readSweepSpec } from '../../config/sweep-spec.js';
import { createLogger } from '../../util/logger.js';
import { BacktestFaultError, backtestSummary, runBacktest } from '../backtest.js';
import { simulatorInstruments } from '../instrument-list.js';
import { runSweep } from '../sweep.js';
import type { Io, SetCode } from './io.js';
import { loadForCommand, reportIssues } from './load-for-command.js';

interface RangeOptions {
  data?: string;
  from?: string;
  to?: string;
}

interface BacktestOptions extends RangeOptions {
  config: string;
  out?: string;
}

/** --data, --from and --to of the backtest and sweep commands. */
export function backtestRange(opts: RangeOptions): { dataFile?: string; fromMs?: number; toMs?: number } {
  const time = (value: string | undefined, name: string): number | undefined => {
    if (value === undefined) return undefined;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw new Error(`--${name}: not a date: ${value}`);
    return ms;
  };
  const fromMs = time(opts.from, 'from');
  const toMs = time(opts.to, 'to');
  return { ...(opts.data ? { dataFile: opts.data } : {}), ...(fromMs !== undefined ? { fromMs } : {}), ...(toMs !== undefined ? { toMs } : {}) };
}

/** A backtest trades the in-process simulator, whatever the mode: symbols are checked against its instruments. */
const backtestInstruments = (loaded: LoadedConfig) => simulatorInstruments(loaded.config);

async function backtest(opts: BacktestOptions, io: Io): Promise<number> {
  const check = await loadForCommand(opts.config, io, { instrumentsFor: backtestInstruments });
  if (!check) return 1;
  const { loaded } = check;
  try {
    const range = backtestRange(opts);
    const logger = createLogger({ level: loaded.config.log.level, fd: 2, base: { app: 'sextant', cmd: 'backtest' } });
    // A progress bar on a terminal; nothing when the output is piped.
    const bar = process.stderr.isTTY ? new cliProgress.SingleBar({ stream: process.stderr, format: 'backtest [{bar}] {percentage}% | {value}/{total} events | eta {eta}s' }, cliProgress.Presets.shades_classic) : undefined;
    const onProgress = (done: number, total: number) => {
      if (!bar) return;
      if (done === 0) bar.start(total, 0);
      else bar.update(done);
      if (done >= total) bar.stop();
    };
    const result = await runBacktest(loaded, logger, { ...range, ...(opts.out ? { outDir: opts.out } : {}), onProgress });
    for (const line of backtestSummary(result)) io.out(line);
    return 0;
  } catch (err) {
    // A strategy fault: the run's files are written; its figures are printed before the failure.
    if (err instanceof BacktestFaultError) for (const line of backtestSummary(err.result)) io.out(line);
    io.err(`backtest failed: ${(err as Error).message}`);
    return 1;
  }
}

async function sweep(opts: BacktestOptions & { sweep: string }, io: Io): Promise<number> {
  const check = await loadForCommand(opts.config, io, { instrumentsFor: backtestInstruments });
  if (!check) return 1;
  const { loaded } = check;
  try {
    const spec = readSweepSpec(opts.sweep);
    const out = opts.out ?? join(loaded.config.backtest.out, 'sweep');
    mkdirSync(out, { recursive: true });
    const range = backtestRange(opts);
    const rows = await runSweep(opts.config, spec, out, range);
    for (const row of rows.slice(0, 10)) io.out(`${String(row.rank).padStart(3)}  ${JSON.stringify(row.params)}  strategy PnL ${row.metrics.strategyPnl}  dd ${row.metrics.maxDrawdownPct} %  fills ${row.metrics.fills}`);
    io.out(`${rows.length} runs ranked in ${join(out, 'sweep.csv')}`);
    return 0;
  } catch (err) {
    // A sweep file in error: every problem with its line, as for a config file.
    if (err instanceof ConfigError) reportIssues(err.issues, opts.sweep, io);
    else io.err(`sweep failed: ${(err as Error).message}`);
    return 1;
  }
}

export function registerBacktest(program: Command, io: Io, setCode: SetCode): void {
  program
    .command('backtest')
    .description('replay market data through the strategies, risk gate, executor and journal in virtual time; writes report.json, trades.csv, equity.csv')
    .option('-c, --config <file>', 'config file', 'config/backtest.yaml')
    .option('--data <file>', 'market data (JSON lines); default: backtest.data')
    .option('--from <iso>', 'first timestamp to replay')
    .option('--to <iso>', 'last timestamp to replay')
    .option('--out <dir>', 'output folder; default: backtest.out')
    .option('--sweep <file>', 'YAML {strategy: <id>, params: {<name>: [values...]}}: every combination, in worker threads, ranked')
    .action(async (opts: BacktestOptions & { sweep?: string }) =>
      setCode(opts.sweep ? await sweep({ ...opts, sweep: opts.sweep }, io) : await backtest(opts, io)),
    );
}
