// Backtests: recorded market data replayed in virtual time through the same core (strategies, risk gate, executor,
// order tracker, journal) as live, against the kernel's virtual venue, with recorded funding rates where given.
// Same inputs -> byte-identical outputs. A strategy that faults fails the run (its report is written first).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import { marginSettingsOf } from '../domain/margin.js';
import { DataFileError, dataFilesName } from '../data/data-file.js';
import { checkDataFiles, priceCadence, replayedFunding } from '../data/data-pairing.js';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import type { StrategyDefinition } from '../strategy/api.js';
import type { BacktestFault, BacktestReport, BacktestStaleness } from '../report/backtest-files.js';
import { futuresReport } from '../report/futures.js';
import { computeMetrics, strategyEquity, type StrategyPnl } from '../report/metrics.js';
import { monthlyReturns } from '../report/monthly.js';
import { BacktestFaultError, backtestSummary, type BacktestResult } from '../report/backtest-result.js';
import { ExecutionTally } from '../report/execution-tally.js';
import { stopwatch } from '../util/clock.js';
import { withClock, type Logger } from '../util/logger.js';
import { BacktestBooks, type ClosedBooks } from './backtest-books.js';
import { quietOf, Replay, type BacktestVenue } from './backtest-driver.js';
import { buildCore, type Core } from './core.js';
import { Schedules } from './cron.js';
import { openVenue, riskLimits } from './kernel.js';
import { VERSION } from '../util/package.js';
import type { Decision, JobCollect } from '../research/jobs.js';

export type { BacktestFault };
export { BacktestFaultError, backtestSummary, type BacktestResult };

export interface BacktestOptions {
  dataFile?: string;
  fromMs?: number;
  toMs?: number;
  outDir?: string;
  /** Loaded strategy definitions by name, instead of loading them from `strategyDirs` (embedding, tests). */
  definitions?: ReadonlyMap<string, StrategyDefinition<unknown>>;
  /** Told of progress: market events replayed of the total. */
  onProgress?: (done: number, total: number) => void;
  /** Handed the virtual venue before the run (embedding, tests: the simulator's ledger can be read after it). */
  onVenue?: (venue: BacktestVenue) => void;
  /** What the result carries besides its metrics (research jobs: Monte Carlo, walk-forward, the lookahead check). */
  collect?: JobCollect;
  /** false: no files are written (a research job wants only the result). Default true. */
  writeFiles?: boolean;
}

/** A backtest under way: its config, the virtual venue, the core trading on it, the in-memory journal. */
interface Run {
  loaded: LoadedConfig;
  opts: BacktestOptions;
  /** The data file, or the files of its symbols. */
  dataFile: LoadedConfig['config']['backtest']['data'];
  outDir: string;
  writeFiles: boolean;
  venue: BacktestVenue;
  logger: Logger;
  journal: SqliteJournal;
  core: Core;
  staleness: BacktestStaleness;
}

/**
 * Runs a backtest and writes its files. Logs go to `logger`'s destination at the config's `log.level` (a silent
 * logger stays silent), timed in virtual time. Throws a BacktestFaultError, once the files are written, when a
 * strategy faulted.
 */
export async function runBacktest(loaded: LoadedConfig, parentLogger: Logger, opts: BacktestOptions = {}): Promise<BacktestResult> {
  const elapsed = stopwatch();
  const run = await openRun(loaded, parentLogger, opts);
  checkData(run);
  const journalPath = join(run.outDir, 'journal.sqlite');
  if (run.writeFiles) clearOutDir(run.outDir, journalPath);
  // For the report: refusals and denials by strategy and reason, and whose each venue order is (its fills' owner).
  const tally = new ExecutionTally();
  run.core.executor.events$.subscribe(tally.observe);
  const { replay, decisions } = watchIntents(run);
  startTrading(run, replay);
  const books = new BacktestBooks({ ...run, tally, keepTripPnls: opts.collect?.trades === true });
  try {
    books.open();
    const loadMs = elapsed();
    await replayData(run, replay);
    const runMs = elapsed() - loadMs;
    const closed = books.close(journalPath);
    const report = reportOf(run, books, tally, closed);
    if (run.writeFiles) books.write(report, closed.funded);
    const timings = { loadMs: Math.round(loadMs), runMs: Math.round(runMs), reportMs: Math.round(elapsed() - loadMs - runMs) };
    const result = resultOf(run, report, timings, collected(opts, books, decisions));
    if (result.faults.length > 0) throw new BacktestFaultError(result);
    return result;
  } finally {
    books.discard();
  }
}

/** The virtual venue over the data, and the core built on it with an in-memory journal. */
async function openRun(loaded: LoadedConfig, parentLogger: Logger, opts: BacktestOptions): Promise<Run> {
  const cfg = loaded.config;
  const dataFile = opts.dataFile ?? cfg.backtest.data;
  const window = { ...(opts.fromMs !== undefined ? { fromMs: opts.fromMs } : {}), ...(opts.toMs !== undefined ? { toMs: opts.toMs } : {}) };
  const venue = await openVenue(loaded, { backtest: { dataFile, logger: parentLogger, ...window } });
  opts.onVenue?.(venue);
  const { clock } = venue;
  const logger = withClock(parentLogger.level === 'silent' ? parentLogger : parentLogger.child({}, { level: cfg.log.level }), () => clock.now());
  // The journal lives in memory while the run goes (nothing to make durable in virtual time) and is saved at the end.
  // A backtest whose files are written (one a user waits for) writes it on a thread of its own, in parallel with the
  // run; research jobs, run side by side on every core already, keep it on theirs (no second thread each).
  const journal = new SqliteJournal(':memory:', { clientOidPrefix: cfg.journal.clientOidPrefix, thread: opts.writeFiles !== false });
  const staleness = stalenessOf(loaded, dataFile);
  const core = await buildCore({
    instruments: await venue.instruments(),
    bind: venue.bind,
    journal,
    clock,
    logger,
    limits: { ...riskLimits(loaded), staleAfterMsBySymbol: new Map(Object.entries(staleness.bySymbol).map(([s, x]) => [s, x.staleAfterMs])) },
    tracking: cfg.execution,
    margin: marginSettingsOf(cfg.exchange.margin),
    strategies: { instances: cfg.strategies, dirs: cfg.strategyDirs, maxErrors: cfg.daemon.maxStrategyErrors },
    // A backtest starts from an empty journal and a fresh simulator: nothing to settle, trading starts with the data
    // (the startup reconciliation still runs, and is charged, as live).
    fencedUntilReconciled: false,
    ...(opts.definitions ? { definitions: opts.definitions } : {}),
  });
  return { loaded, opts, dataFile, outDir: opts.outDir ?? cfg.backtest.out, writeFiles: opts.writeFiles !== false, venue, logger, journal, core, staleness };
}

/**
 * How old a reference price may be (backtest.staleness): under `data-cadence`, a symbol replayed from candles moves
 * every quarter candle, so its limit is that quarter plus a tickers poll and the latency when that is longer than
 * risk.staleAfterMs; ticks, and every symbol under `risk`, keep risk.staleAfterMs, as live.
 */
function stalenessOf(loaded: LoadedConfig, dataFile: Run['dataFile']): BacktestStaleness {
  const cfg = loaded.config;
  const staleAfterMs = cfg.risk.staleAfterMs;
  const bySymbol: BacktestStaleness['bySymbol'] = {};
  if (cfg.backtest.staleness === 'data-cadence') {
    for (const [symbol, c] of priceCadence(dataFile)) {
      const own = c.everyMs + cfg.daemon.polls.tickersMs + cfg.backtest.latencyMs;
      if (c.everyMs > 0 && own > staleAfterMs) bySymbol[symbol] = { data: c.data, staleAfterMs: own };
    }
  }
  return { rule: cfg.backtest.staleness, staleAfterMs, bySymbol };
}

/** The data must be what the strategies ask for (its symbols; candles no coarser than their bars), checked before
 * anything is written; recorded funding rates replace the simulator's seeded ones for their contracts. */
function checkData({ loaded, opts, dataFile, venue, journal, core }: Run): void {
  const cfg = loaded.config;
  const engine = venue.simulator.engine;
  const pairing = checkDataFiles(dataFile, {
    ...(opts.fromMs !== undefined ? { fromMs: opts.fromMs } : {}),
    ...(opts.toMs !== undefined ? { toMs: opts.toMs } : {}),
    symbols: cfg.strategies.flatMap((s) => s.symbols.map((symbol) => ({ strategy: s.id, symbol }))),
    timeframes: core.runner.timeframes(),
  });
  const funding = replayedFunding(cfg.backtest.funding, new Set(engine.instruments('futures').map((i) => i.symbol)));
  pairing.push(...funding.problems);
  if (pairing.length > 0) {
    journal.close();
    throw new DataFileError(pairing.join('\n'));
  }
  for (const [symbol, settlements] of funding.bySymbol) engine.setFundingHistory(symbol, settlements);
}

/** The output folder made, a journal of an earlier run in it removed. */
function clearOutDir(outDir: string, journalPath: string): void {
  mkdirSync(outDir, { recursive: true });
  for (const f of [journalPath, `${journalPath}-wal`, `${journalPath}-shm`]) if (existsSync(f)) rmSync(f);
}

/** The replay is told of every intent (it waits while one is being sent); research jobs may keep each decision. */
function watchIntents({ venue, core, opts }: Run): { replay: Replay; decisions: Decision[] } {
  const { clock } = venue;
  const replay = new Replay(venue, quietOf(clock, core));
  core.runner.intents$.subscribe(replay.touch);
  const decisions: Decision[] = [];
  if (opts.collect?.decisions)
    core.runner.intents$.subscribe((intent) => decisions.push({ ts: clock.now(), strategy: intent.strategyId, intent: JSON.stringify(intent) }));
  return { replay, decisions };
}

/** Reconciliation first, before any order is answered; then on daemon.reconcileCron, with the strategies' schedules. */
function startTrading({ loaded, venue, core, logger }: Run, replay: Replay): void {
  const cfg = loaded.config;
  venue.clock.at(venue.startMs, () => {
    replay.touch();
    void core.reconcile({ scanForeign: true });
  });
  core.start(new Schedules(venue.clock, logger, replay.touch), cfg.daemon.reconcileCron, cfg.strategies);
}

/** The data replayed, then one more round of polls; the strategies and the executor take nothing more after it. */
async function replayData({ loaded, opts, venue, core }: Run, replay: Replay): Promise<void> {
  const cfg = loaded.config;
  const events = venue.market.length;
  opts.onProgress?.(0, events);
  await replay.run(venue.endMs + Math.max(cfg.daemon.polls.tickersMs, cfg.backtest.latencyMs), (done) => opts.onProgress?.(done, events));
  core.stopIntake();
  opts.onProgress?.(events, events);
}

/** report.json's content (trades.csv's rows are written beside it). */
function reportOf(run: Run, books: BacktestBooks, tally: ExecutionTally, closed: ClosedBooks): Omit<BacktestReport, 'trades'> {
  const { loaded, venue, core, dataFile } = run;
  const cfg = loaded.config;
  const { simulator, metered } = venue;
  const { samples, fills, sampleMs } = books;
  const status = new Map(core.runner.status().map((s) => [s.id, s]));
  const noPnl: StrategyPnl = { realized: '0', unrealized: '0', fees: '0', funding: '0', pnl: '0', fills: 0 };
  return {
    version: VERSION,
    data: { file: dataFilesName(dataFile), records: venue.market.length, fromMs: venue.startMs, toMs: venue.endMs },
    strategies: cfg.strategies.map((s) => ({
      id: s.id,
      name: s.name,
      symbols: s.symbols,
      params: s.params,
      pnl: closed.pnls[s.id] ?? noPnl,
      trades: fills.trips.stats(s.id),
      errors: status.get(s.id)?.errors ?? 0,
      rejected: tally.rejected(s.id),
    })),
    faults: faultsOf(core),
    latencyMs: cfg.backtest.latencyMs,
    fillModel: cfg.sim.fills,
    sampleMs,
    staleness: run.staleness,
    metrics: computeMetrics({ equity: samples.points, executions: fills.ledger.totals(), trips: fills.trips.stats(), exposed: samples.exposed, sampleMs }),
    orders: closed.orders,
    rejected: tally.rejected(),
    denied: tally.denied(),
    simulated: {
      ticks: simulator.engine.stats.ticks,
      fills: simulator.engine.stats.fills,
      requests: metered.stats.requests,
      weight: metered.stats.weight,
      rateLimited429: metered.stats.rateLimited,
      pollsSkipped: venue.pollsSkipped(),
    },
    ...(books.tradesFutures
      ? {
          futures: futuresReport({
            futures: new Set(core.symbols.futures),
            funding: books.fundingLedger.entries,
            liquidations: simulator.engine.liquidations(),
            fees: fills.ledger.feesByKind(),
            equity: samples.points,
          }),
        }
      : {}),
    monthly: monthlyReturns(samples.points),
  };
}

/** The strategies that faulted, with when, in which hook and why. */
function faultsOf(core: Core): BacktestFault[] {
  return core.runner
    .status()
    .flatMap((s) =>
      s.faulted ? [{ strategy: s.id, atMs: s.atMs!, at: new Date(s.atMs!).toISOString(), hook: s.hook!, error: s.error!, reason: s.reason! }] : [],
    );
}

/** What the run was asked to collect besides its metrics (research jobs). */
function collected(opts: BacktestOptions, books: BacktestBooks, decisions: Decision[]): NonNullable<BacktestResult['collected']> {
  const collect = opts.collect ?? {};
  return {
    ...(collect.trades ? { tradePnls: books.fills.trips.pnls() } : {}),
    // The strategy's equity (metrics.ts: strategyEquity): what walk-forward stitches and its drawdown is taken of.
    ...(collect.equity ? { equity: strategyEquity(books.samples.points).map((p): [number, string] => [p.ts, p.equity.toString()]) } : {}),
    ...(collect.decisions ? { decisions } : {}),
  };
}

/** The run's result (what `sextant backtest` prints and research jobs compare). */
function resultOf(
  { opts, outDir, venue, staleness }: Run,
  report: Omit<BacktestReport, 'trades'>,
  timings: BacktestResult['timings'],
  gathered: NonNullable<BacktestResult['collected']>,
): BacktestResult {
  const { metered } = venue;
  return {
    outDir,
    metrics: report.metrics,
    events: venue.market.length,
    orders: report.orders,
    rejected: report.rejected,
    denied: report.denied,
    faults: report.faults,
    requests: metered.stats.requests,
    rateLimited: metered.stats.rateLimited,
    staleness,
    timings,
    ...(opts.collect ? { collected: gathered } : {}),
  };
}
