// Backtests: recorded market data replayed in virtual time through the same core (strategies, risk gate, executor,
// order tracker, journal) as live, against the kernel's virtual venue, with recorded funding rates where given.
// Same inputs -> byte-identical outputs. A strategy that faults fails the run (its report is written first).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import type { Balance } from '../domain/market.js';
import { marginSettingsOf } from '../domain/margin.js';
import { DataFileError, dataFilesName } from '../data/data-file.js';
import { checkDataFiles, replayedFunding } from '../data/data-pairing.js';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import type { StrategyDefinition } from '../strategy/api.js';
import { BacktestFills } from '../report/backtest-fills.js';
import { writeBacktestFiles, type BacktestFault, type BacktestReport } from '../report/backtest-files.js';
import { EquityCsv } from '../report/equity-csv.js';
import { EquitySamples, type AccountNow } from '../report/equity-samples.js';
import { FundingCollector, fundingRows, futuresReport } from '../report/futures.js';
import { computeMetrics, type StrategyPnl } from '../report/metrics.js';
import { monthlyReturns } from '../report/monthly.js';
import { BacktestFaultError, backtestSummary, type BacktestResult } from '../report/backtest-result.js';
import { ExecutionTally } from '../report/execution-tally.js';
import { stopwatch } from '../util/clock.js';
import { withClock, type Logger } from '../util/logger.js';
import { Replay, type BacktestVenue } from './backtest-driver.js';
import { buildCore } from './core.js';
import { Schedules } from './cron.js';
import { openVenue, riskLimits } from './kernel.js';
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

const YEAR_MS = 365 * 24 * 3600 * 1000;

/**
 * Runs a backtest and writes its files. Logs go to `logger`'s destination at the config's `log.level` (a silent
 * logger stays silent), timed in virtual time. Throws a BacktestFaultError, once the files are written, when a
 * strategy faulted.
 */
export async function runBacktest(loaded: LoadedConfig, parentLogger: Logger, opts: BacktestOptions = {}): Promise<BacktestResult> {
  const cfg = loaded.config;
  const bt = cfg.backtest;
  const outDir = opts.outDir ?? bt.out;
  const elapsed = stopwatch();
  const dataFile = opts.dataFile ?? bt.data;
  const venue = await openVenue(loaded, {
    backtest: {
      dataFile,
      logger: parentLogger,
      ...(opts.fromMs !== undefined ? { fromMs: opts.fromMs } : {}),
      ...(opts.toMs !== undefined ? { toMs: opts.toMs } : {}),
    },
  });
  const { clock, simulator, metered, startMs: start, endMs: end } = venue;
  const engine = simulator.engine;
  opts.onVenue?.(venue);
  const events = venue.market.length;
  const logger = withClock(parentLogger.level === 'silent' ? parentLogger : parentLogger.child({}, { level: cfg.log.level }), () => clock.now());
  // The journal lives in memory while the run goes (nothing to make durable in virtual time) and is saved at the end.
  // A backtest whose files are written (one a user waits for) writes it on a thread of its own, in parallel with the
  // run; research jobs, run side by side on every core already, keep it on theirs (no second thread each).
  const journal = new SqliteJournal(':memory:', { clientOidPrefix: cfg.journal.clientOidPrefix, thread: opts.writeFiles !== false });
  const core = await buildCore({
    instruments: await venue.instruments(),
    bind: venue.bind,
    journal,
    clock,
    logger,
    limits: riskLimits(loaded),
    tracking: cfg.execution,
    margin: marginSettingsOf(loaded.config.exchange.margin),
    strategies: { instances: cfg.strategies, dirs: cfg.strategyDirs, maxErrors: cfg.daemon.maxStrategyErrors },
    // A backtest starts from an empty journal and a fresh simulator: nothing to settle, trading starts with the data
    // (the startup reconciliation still runs, and is charged, as live).
    fencedUntilReconciled: false,
    ...(opts.definitions ? { definitions: opts.definitions } : {}),
  });
  const { symbols, runner, instruments } = core;
  // The data must be what the strategies ask for (its symbols; candles no coarser than their bars): checked before
  // anything is written.
  const pairing = checkDataFiles(dataFile, {
    ...(opts.fromMs !== undefined ? { fromMs: opts.fromMs } : {}),
    ...(opts.toMs !== undefined ? { toMs: opts.toMs } : {}),
    symbols: cfg.strategies.flatMap((s) => s.symbols.map((symbol) => ({ strategy: s.id, symbol }))),
    timeframes: runner.timeframes(),
  });
  // Recorded funding rates replace the simulator's seeded ones for their contracts.
  const funding = replayedFunding(bt.funding, new Set(engine.instruments('futures').map((i) => i.symbol)));
  pairing.push(...funding.problems);
  if (pairing.length > 0) {
    journal.close();
    throw new DataFileError(pairing.join('\n'));
  }
  for (const [symbol, settlements] of funding.bySymbol) engine.setFundingHistory(symbol, settlements);
  const journalPath = join(outDir, 'journal.sqlite');
  const writeFiles = opts.writeFiles !== false;
  if (writeFiles) {
    mkdirSync(outDir, { recursive: true });
    for (const f of [journalPath, `${journalPath}-wal`, `${journalPath}-shm`]) if (existsSync(f)) rmSync(f);
  }
  // For the report: refusals and denials by strategy and reason, and whose each venue order is (its fills' owner).
  const tally = new ExecutionTally();
  core.executor.events$.subscribe(tally.observe);
  // Quiet: every chain of promise continuations (the write in flight, a reconciliation) waits on virtual time.
  const replay = new Replay(venue, () => clock.sleeping === core.busy() && !(core.inFlight.size === 0 && core.queued() > 0));
  runner.intents$.subscribe(replay.touch);
  const decisions: Decision[] = [];
  if (opts.collect?.decisions)
    runner.intents$.subscribe((intent) => decisions.push({ ts: clock.now(), strategy: intent.strategyId, intent: JSON.stringify(intent) }));
  // Reconciliation first, before any order is answered; then on daemon.reconcileCron, with the strategies' schedules.
  clock.at(start, () => {
    replay.touch();
    void core.reconcile({ scanForeign: true });
  });
  core.start(new Schedules(clock, logger, replay.touch), cfg.daemon.reconcileCron, cfg.strategies);

  // Report samples: the simulated account as it truly is (not as last polled), at most ~5,000 of them.
  const sampleMs = bt.sampleMs ?? Math.max(1000, Math.ceil((end - start) / 5000 / 1000) * 1000);
  // What equity counts: the balances of the surfaces the strategies trade.
  const tradesFutures = symbols.futures.length > 0;
  const counted = (balances: Balance[]) => balances.filter((b) => (b.surface === 'futures' ? tradesFutures : symbols.spot.length > 0));
  // Whether every contract the simulator lists is one the strategies trade (positions read are all there can be).
  const onlyTraded = engine.instruments('futures').every((i) => symbols.futures.includes(i.symbol));
  // Balances and positions are read again only once the simulator's state moved (orders, fills, funding); prices and
  // the margin rate (at the marks) every time.
  let readAt = Number.NaN;
  let balances: Balance[] = [];
  let positions: AccountNow['positions'] = [];
  const accountNow = (): AccountNow => {
    if (engine.version !== readAt) {
      readAt = engine.version;
      positions = symbols.futures.flatMap((s) => simulator.positionsNow(s));
      balances = [...simulator.balancesNow('spot'), ...simulator.balancesNow('futures')];
    }
    const now: AccountNow = { tickers: venue.tickersNow(symbols), balances, positions };
    if (!tradesFutures) return now;
    // Without a position the margin rates are null: the account's view at the marks is read only while one is held.
    if (positions.length === 0 && onlyTraded) return Object.assign({}, now, { margin: { marginRate: null, maintenanceRate: null } });
    const view = engine.accountView();
    return Object.assign({}, now, { margin: { marginRate: view.marginRate, maintenanceRate: view.maintenanceRate } });
  };
  // Funding entries, read from the ledger once a settlement of a traded contract has come (and at the end): the
  // ledger keeps a bounded history.
  const fundingLedger = new FundingCollector((query) => engine.ledger(query));
  const settledUpTo = () => symbols.futures.reduce((sum, s) => sum + engine.funding.lastSettlementMs(s, clock.now()), 0);
  let settled = settledUpTo();
  const samples = new EquitySamples(instruments, counted, accountNow());
  // A liquidation's close and funding belong to no order of a strategy: to the strategy trading the contract, if one alone does.
  const symbolOwner = (symbol: string, otherwise: string) => {
    const owners = cfg.strategies.filter((s) => s.symbols.includes(symbol));
    return owners.length === 1 ? owners[0]!.id : otherwise;
  };
  // The fills, folded as they happen: the run keeps no list of them, and what grows with them is spilled next to the
  // report. A fill's owner is known once the venue's answer to its order has come back (an event says it, or the
  // journal); a market order fills before that.
  const fills = new BacktestFills({
    futures: new Set(symbols.futures),
    marks: samples.marks,
    chart: samples.prices,
    keepTripPnls: opts.collect?.trades === true,
    // Spilled to hidden files in the output folder (`.trades.csv.part`, `.round-trips.csv.part`), merged at the end.
    ...(writeFiles ? { spillTo: `${join(outDir, '.')}${sep}.` } : {}),
  });
  let equityCsv: EquityCsv | undefined;
  try {
    // equity.csv, written as the samples are taken.
    if (writeFiles) equityCsv = new EquityCsv(join(outDir, '.equity.csv.part'), tradesFutures);
    // How a futures fill was made is read as it happens: the simulator keeps a bounded history of fill details.
    engine.onFill = (f, order) => {
      const detail = order.surface === 'futures' ? engine.fillDetail(f.symbol, f.fillId) : undefined;
      const liquidation = order.liquidation === true;
      const kind = detail || liquidation ? { taker: detail?.taker ?? null, liquidation, positionSide: detail?.positionSide ?? null } : undefined;
      fills.fill(f, kind, liquidation ? symbolOwner(f.symbol, '(liquidation)') : tally.ownerOf(f.orderId));
    };
    core.executor.events$.subscribe((e) => {
      if (e.type === 'accepted' || e.type === 'resolved') fills.resolve(e.orderId, e.strategyId, e.atMs);
    });
    const ownerInJournal = (orderId: string) => journal.orderByOrderId(orderId)?.strategyId;
    const sample = () => {
      samples.sample(clock.now(), accountNow());
      equityCsv?.take(samples.points);
      // Fills of an order whose answer went by without an event: the journal names its owner.
      fills.settle(ownerInJournal, clock.now() - sampleMs, clock.now());
      if (!tradesFutures || settledUpTo() === settled) return;
      settled = settledUpTo();
      fundingLedger.collect(clock.now());
    };
    clock.every(start, sampleMs, sample);

    // The run: after the last event, one more round of polls.
    opts.onProgress?.(0, events);
    const loadMs = elapsed();
    await replay.run(end + Math.max(cfg.daemon.polls.tickersMs, bt.latencyMs), (done) => opts.onProgress?.(done, events));
    core.stopIntake();
    const runMs = elapsed() - loadMs;
    if (samples.lastMs !== clock.now()) sample();
    if (tradesFutures) fundingLedger.collect(clock.now());
    opts.onProgress?.(events, events);
    const orders = journal.countByState();
    const finalTickers = venue.tickersNow(symbols);
    const funded = fundingRows(fundingLedger.entries, (symbol, atMs) => engine.funding.rate(symbol, engine.funding.lastSettlementMs(symbol, atMs)));
    fills.finish((orderId) => tally.ownerOf(orderId) ?? ownerInJournal(orderId) ?? '(not ours)');
    const pnls = fills.strategies.result(
      (s) => finalTickers.get(s)?.last,
      funded.flatMap((r) => (r.kind === 'funding' ? [{ strategy: symbolOwner(r.symbol, '(funding)'), amount: r.amount }] : [])),
    );
    if (writeFiles) journal.saveTo(journalPath);
    journal.close();

    const metrics = computeMetrics(samples.points, fills.ledger.totals(), samples.exposed, YEAR_MS / sampleMs);
    const status = new Map(runner.status().map((s) => [s.id, s]));
    const faults: BacktestFault[] = runner
      .status()
      .flatMap((s) =>
        s.faulted ? [{ strategy: s.id, atMs: s.atMs!, at: new Date(s.atMs!).toISOString(), hook: s.hook!, error: s.error!, reason: s.reason! }] : [],
      );
    const rejected = tally.rejected();
    const denied = tally.denied();
    const noPnl: StrategyPnl = { realized: '0', unrealized: '0', fees: '0', funding: '0', pnl: '0', fills: 0 };
    const { trips } = fills;
    const report: Omit<BacktestReport, 'trades'> = {
      data: { file: dataFilesName(dataFile), records: events, fromMs: start, toMs: end },
      strategies: cfg.strategies.map((s) => ({
        id: s.id,
        name: s.name,
        symbols: s.symbols,
        params: s.params,
        pnl: pnls[s.id] ?? noPnl,
        trades: trips.stats(s.id),
        errors: status.get(s.id)?.errors ?? 0,
        rejected: tally.rejected(s.id),
      })),
      faults,
      latencyMs: bt.latencyMs,
      sampleMs,
      metrics,
      orders,
      rejected,
      denied,
      simulated: {
        ticks: simulator.engine.stats.ticks,
        fills: simulator.engine.stats.fills,
        requests: metered.stats.requests,
        weight: metered.stats.weight,
        rateLimited429: metered.stats.rateLimited,
        pollsSkipped: venue.pollsSkipped(),
      },
      ...(tradesFutures
        ? {
            futures: futuresReport({
              futures: new Set(symbols.futures),
              funding: fundingLedger.entries,
              liquidations: engine.liquidations(),
              fees: fills.ledger.feesByKind(),
              equity: samples.points,
            }),
          }
        : {}),
      monthly: monthlyReturns(samples.points),
    };
    if (writeFiles) {
      const parts = { trips, executions: fills.executions!, funding: funded, markers: fills.markers.markers(), equityCsv: equityCsv! };
      writeBacktestFiles(outDir, report, parts, samples.points, samples.prices, `Backtest: ${cfg.strategies.map((s) => s.id).join(', ')}`);
    }
    const timings = { loadMs: Math.round(loadMs), runMs: Math.round(runMs), reportMs: Math.round(elapsed() - loadMs - runMs) };
    const collect = opts.collect ?? {};
    const collected = {
      ...(collect.trades ? { tradePnls: trips.pnls() } : {}),
      ...(collect.equity ? { equity: samples.points.map((p): [number, string] => [p.ts, p.equity.toString()]) } : {}),
      ...(collect.decisions ? { decisions } : {}),
    };
    const result: BacktestResult = {
      outDir,
      metrics,
      events,
      orders,
      rejected,
      denied,
      faults,
      requests: metered.stats.requests,
      rateLimited: metered.stats.rateLimited,
      timings,
      ...(opts.collect ? { collected } : {}),
    };
    if (faults.length > 0) throw new BacktestFaultError(result);
    return result;
  } finally {
    fills.discard();
    equityCsv?.discard();
  }
}
