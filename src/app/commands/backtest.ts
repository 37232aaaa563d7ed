// `sextant backtest [--sweep <file>]`: one replay in virtual time, or a sweep of strategy params ranked by PnL.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { ConfigError, type LoadedConfig } from '../../config/load.js';
import { readSweepSpec } from '../../config/sweep-spec.js';
import { QueueRunner } from '../../research/queue-runner.js';
import { DEFAULT_QUEUE } from '../../research/queue.js';
import { createLogger, redactUrlCredentials, registerUrlCredentials } from '../../util/logger.js';
import { BacktestFaultError, backtestSummary, runBacktest } from '../backtest.js';
import { replayJournal } from '../replay-journal.js';
import { divergenceSummary } from '../../report/divergence.js';
import { simulatorInstruments } from '../instrument-list.js';
import { jobDataFiles, jobStrategyFiles, localJobRunner } from '../job-run.js';
import { warmDataCache } from '../sim-market.js';
import { runSweep } from '../../research/sweep.js';
import type { Io, SetCode } from './io.js';
import { loadForCommand, reportIssues } from './load-for-command.js';
import { metricText } from '../../report/html-tables.js';

interface RangeOptions {
  data?: string;
  from?: string;
  to?: string;
}

interface BacktestOptions extends RangeOptions {
  config: string;
  out?: string;
  /** A live session's journal: its orders paired with the replay's (the divergence report). */
  replayJournal?: string;
}

interface SweepOptions extends BacktestOptions {
  sweep: string;
  /** Redis URL: the runs go to `sextant worker` processes. */
  queue?: string;
  queueName: string;
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

/** A progress bar on stderr when it is a terminal; nothing when the output is piped. */
export function progressBar(label: string, unit: string): (done: number, total: number) => void {
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar(
        { stream: process.stderr, format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | eta {eta}s` },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  return (done, total) => {
    if (!bar) return;
    if (done === 0) bar.start(total, 0);
    else bar.update(done);
    if (done >= total) bar.stop();
  };
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
    const run = { ...range, ...(opts.out ? { outDir: opts.out } : {}), onProgress: progressBar('backtest', 'events') };
    if (opts.replayJournal) {
      const { result, report } = await replayJournal(loaded, logger, { ...run, journalFile: opts.replayJournal });
      for (const line of [...backtestSummary(result), ...divergenceSummary(report)]) io.out(line);
      io.out(`divergence report: ${join(result.outDir, 'divergence.html')} (and divergence.json)`);
      return 0;
    }
    const result = await runBacktest(loaded, logger, run);
    for (const line of backtestSummary(result)) io.out(line);
    return 0;
  } catch (err) {
    // A strategy fault: the run's files are written; its figures are printed before the failure.
    if (err instanceof BacktestFaultError) for (const line of backtestSummary(err.result)) io.out(line);
    io.err(`backtest failed: ${(err as Error).message}`);
    return 1;
  }
}

async function sweep(opts: SweepOptions, io: Io): Promise<number> {
  const check = await loadForCommand(opts.config, io, { instrumentsFor: backtestInstruments });
  if (!check) return 1;
  const { loaded } = check;
  try {
    const spec = readSweepSpec(opts.sweep);
    const out = opts.out ?? join(loaded.config.backtest.out, 'sweep');
    mkdirSync(out, { recursive: true });
    const range = backtestRange(opts);
    // Worker threads here, or `sextant worker` processes taking the runs from a Redis queue.
    const queued = opts.queue ? new QueueRunner({ redis: opts.queue, queue: opts.queueName }) : undefined;
    if (queued) {
      registerUrlCredentials(opts.queue);
      io.err(
        `sweep: the runs go to queue ${queued.queueName} at ${redactUrlCredentials(opts.queue!)}, for workers started with: sextant worker --redis <url> --queue ${queued.queueName}`,
      );
    }
    // The data's cache built once here, before runs start together (each would build it otherwise).
    warmDataCache(loaded, range.dataFile);
    const runner = queued ?? localJobRunner();
    const rows = await runSweep(
      {
        configFile: opts.config,
        spec,
        outDir: out,
        range,
        dataFiles: jobDataFiles(loaded.config, range),
        strategyFiles: jobStrategyFiles(loaded.config, spec.strategy),
      },
      runner,
      progressBar('sweep', 'runs'),
    ).finally(() => runner.close());
    for (const row of rows.slice(0, 10))
      io.out(
        `${String(row.rank).padStart(3)}  ${JSON.stringify(row.params)}  strategy PnL ${metricText(row.metrics, 'strategyPnl')}  dd ${row.metrics.maxDrawdownPct} %  fills ${row.metrics.fills}`,
      );
    io.out(`${rows.length} runs ranked in ${join(out, 'sweep.csv')}`);
    if (queued?.retried.length) io.out(`retried after a worker stopped or failed: ${queued.retried.join(', ')}`);
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
    .description(
      "replay market data through the strategies, risk gate, executor and journal in virtual time; writes report.json (the figures), report.html (the page), trades.csv (every fill and funding payment), round-trips.csv (every round trip), equity.csv (the equity samples) and journal.sqlite (the run's journal)",
    )
    .option('-c, --config <file>', 'config file', 'config/backtest.yaml')
    .option('--data <file>', 'market data (JSON lines); default: backtest.data')
    .option('--from <iso>', 'first timestamp to replay')
    .option('--to <iso>', 'last timestamp to replay')
    .option('--out <dir>', 'output folder; default: backtest.out')
    .option('--sweep <file>', 'YAML {strategy: <id>, params: {<name>: [values...]}}: every combination, on worker threads (or queue workers: --queue), ranked')
    .option('--queue <redis-url>', 'sweep: the runs go to a Redis queue, run by `sextant worker` processes in the same file tree')
    .option('--queue-name <name>', "sweep: the queue's name", DEFAULT_QUEUE)
    .option(
      '--replay-journal <journal>',
      "a live session's journal (SQLite): the session's recorded market (--data, what `sextant record` wrote) replayed through the simulator, each live order paired with its simulated twin in divergence.json and divergence.html",
    )
    .action(async (opts: Omit<SweepOptions, 'sweep'> & { sweep?: string }) => {
      if (opts.queue && !opts.sweep) {
        io.err('--queue runs the runs of a sweep: give --sweep <file> with it');
        return setCode(1);
      }
      if (opts.replayJournal && opts.sweep) {
        io.err('--replay-journal compares one replay with a live session: it does not go with --sweep');
        return setCode(1);
      }
      setCode(opts.sweep ? await sweep({ ...opts, sweep: opts.sweep }, io) : await backtest(opts, io));
    });
}
