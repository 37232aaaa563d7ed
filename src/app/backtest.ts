// Backtests: recorded market data replayed in virtual time through the same core (strategies, risk gate, executor,
// order tracker, journal) as live, against the kernel's virtual venue. Same inputs -> byte-identical outputs.
// A strategy that faults fails the run (its report is written first).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import type { Balance, Fill } from '../domain/market.js';
import type { ExecutionEvent } from '../domain/events.js';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import { writeBacktestFiles, type BacktestFault, type BacktestReport } from '../report/backtest-files.js';
import { EquitySamples } from '../report/equity-samples.js';
import { computeMetrics, realize, strategyPnls, type Metrics, type StrategyPnl } from '../report/metrics.js';
import { countByReason, describeCounts, rejectionReason } from '../report/rejections.js';
import { stopwatch } from '../util/clock.js';
import { withClock, type Logger } from '../util/logger.js';
import { Replay } from './backtest-driver.js';
import { buildCore } from './core.js';
import { Schedules } from './cron.js';
import { openVenue, riskLimits } from './kernel.js';

export type { BacktestFault };

export interface BacktestOptions {
  dataFile?: string;
  fromMs?: number;
  toMs?: number;
  outDir?: string;
  /** Told of progress: market events replayed of the total. */
  onProgress?: (done: number, total: number) => void;
}

export interface BacktestResult {
  outDir: string;
  metrics: Metrics;
  events: number;
  orders: Record<string, number>;
  /** Orders the venue refused, by reason (post-only, insufficient...); strategies[].rejected splits them. */
  rejected: Record<string, number>;
  /** Orders and cancels the risk gate or the executor denied, by reason. */
  denied: Record<string, number>;
  /** Strategies that faulted: the run failed (runBacktest throws a BacktestFaultError carrying this result). */
  faults: BacktestFault[];
  requests: number;
  rateLimited: number;
  /** Wall time of the phases: reading the data, the replay itself, writing the report. */
  timings: { loadMs: number; runMs: number; reportMs: number };
}

const YEAR_MS = 365 * 24 * 3600 * 1000;

/** A run whose strategies faulted: its report is written, the run failed. */
export class BacktestFaultError extends Error {
  constructor(readonly result: BacktestResult) {
    super(result.faults.map((f) => `strategy ${f.strategy} faulted at ${f.at}: ${f.reason}`).join('; ') + ` (report in ${result.outDir})`);
  }
}

/** The lines a command prints after a run. */
export function backtestSummary(r: BacktestResult): string[] {
  const m = r.metrics;
  return [
    `${r.events} market events, ${r.requests} requests (${r.rateLimited} answered 429) -> ${r.outDir}`,
    `strategy PnL ${m.strategyPnl} (${m.strategyReturnPct} %) vs buy-and-hold ${m.buyAndHoldPnl} (${m.buyAndHoldReturnPct} %), max drawdown ${m.maxDrawdownPct} %, Sharpe ${m.sharpe}, fills ${m.fills}, fees ${m.feesPaid}, rejected: ${describeCounts(r.rejected)}, denied: ${describeCounts(r.denied)}`,
  ];
}

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
  const venue = await openVenue(loaded, { logger: parentLogger, backtest: { dataFile, ...(opts.fromMs !== undefined ? { fromMs: opts.fromMs } : {}), ...(opts.toMs !== undefined ? { toMs: opts.toMs } : {}) } });
  mkdirSync(outDir, { recursive: true });
  const journalPath = join(outDir, 'journal.sqlite');
  for (const f of [journalPath, `${journalPath}-wal`, `${journalPath}-shm`]) if (existsSync(f)) rmSync(f);
  const { clock, simulator, metered, startMs: start, endMs: end } = venue;
  const events = venue.market.length;
  const logger = withClock(parentLogger.level === 'silent' ? parentLogger : parentLogger.child({}, { level: cfg.log.level }), () => clock.now());
  // The journal lives in memory while the run goes (nothing to make durable in virtual time) and is saved at the end.
  const journal = new SqliteJournal(':memory:', { clientOidPrefix: cfg.journal.clientOidPrefix });
  const core = await buildCore({
    instruments: await venue.instruments(), bind: venue.bind, journal, clock, logger, limits: riskLimits(loaded), tracking: cfg.execution,
    strategies: { instances: cfg.strategies, dirs: cfg.strategyDirs, maxErrors: cfg.daemon.maxStrategyErrors },
    // A backtest starts from an empty journal and a fresh simulator: nothing to settle, trading starts with the data
    // (the startup reconciliation still runs, and is charged, as live).
    fencedUntilReconciled: false,
  });
  const { symbols, runner, instruments } = core;
  // For the report: refusals and denials by strategy and reason, and whose each venue order is (its fills' owner).
  const refusals: Array<{ strategy: string; reason: string }> = [];
  const denials: string[] = [];
  const ownerOf = new Map<string, string>();
  core.executor.events$.subscribe((e: ExecutionEvent) => {
    if (e.type === 'accepted' || e.type === 'resolved') ownerOf.set(e.orderId, e.strategyId);
    else if (e.type === 'rejected') refusals.push({ strategy: e.strategyId, reason: rejectionReason(e.code, e.reason) });
    else if (e.type === 'denied') denials.push(e.reason);
  });
  const fills: Fill[] = [];
  simulator.engine.onFill = (f) => fills.push(f);
  // Quiet: every chain of promise continuations (the write in flight, a reconciliation) waits on virtual time.
  const replay = new Replay(venue, () => clock.sleeping === core.busy() && !(core.inFlight.size === 0 && core.queued() > 0));
  runner.intents$.subscribe(replay.touch);
  // Reconciliation first, before any order is answered; then on daemon.reconcileCron, with the strategies' schedules.
  clock.at(start, () => {
    replay.touch();
    void core.reconcile({ scanForeign: true });
  });
  core.start(new Schedules(clock, logger, replay.touch), cfg.daemon.reconcileCron, cfg.strategies);

  // Report samples: the simulated account as it truly is (not as last polled), at most ~5,000 of them.
  const sampleMs = bt.sampleMs ?? Math.max(1000, Math.ceil((end - start) / 5000 / 1000) * 1000);
  // What equity counts: the balances of the surfaces the strategies trade.
  const counted = (balances: Balance[]) => balances.filter((b) => (b.surface === 'futures' ? symbols.futures.length > 0 : symbols.spot.length > 0));
  const accountNow = () => ({
    tickers: venue.tickersNow(symbols), balances: [...simulator.balancesNow('spot'), ...simulator.balancesNow('futures')],
    positions: symbols.futures.flatMap((s) => simulator.positionsNow(s)),
  });
  const samples = new EquitySamples(instruments, counted, accountNow());
  const sample = () => samples.sample(clock.now(), accountNow());
  clock.every(start, sampleMs, sample);

  // The run: after the last event, one more round of polls.
  opts.onProgress?.(0, events);
  const loadMs = elapsed();
  await replay.run(end + Math.max(cfg.daemon.polls.tickersMs, bt.latencyMs), (done) => opts.onProgress?.(done, events));
  core.stopIntake();
  const runMs = elapsed() - loadMs;
  if (samples.lastMs !== clock.now()) sample();
  opts.onProgress?.(events, events);
  const orders = journal.countByState();
  const finalTickers = venue.tickersNow(symbols);
  const pnls = strategyPnls(fills, (f) => ownerOf.get(f.orderId) ?? journal.orderByOrderId(f.orderId)?.strategyId ?? '(not ours)', (s) => finalTickers.get(s)?.last);
  journal.saveTo(journalPath);
  journal.close();

  const trades = realize(fills);
  const metrics = computeMetrics(samples.points, trades, samples.exposed, YEAR_MS / sampleMs);
  const status = new Map(runner.status().map((s) => [s.id, s]));
  const faults: BacktestFault[] = runner.status().flatMap((s) =>
    s.faulted ? [{ strategy: s.id, atMs: s.atMs!, at: new Date(s.atMs!).toISOString(), hook: s.hook!, error: s.error!, reason: s.reason! }] : [],
  );
  const rejected = countByReason(refusals.map((r) => r.reason));
  const denied = countByReason(denials);
  const noPnl: StrategyPnl = { realized: '0', unrealized: '0', fees: '0', pnl: '0', fills: 0 };
  const report: BacktestReport = {
    data: { file: dataFile, records: events, fromMs: start, toMs: end },
    strategies: cfg.strategies.map((s) => ({
      id: s.id, name: s.name, symbols: s.symbols, params: s.params, pnl: pnls[s.id] ?? noPnl, errors: status.get(s.id)?.errors ?? 0,
      rejected: countByReason(refusals.filter((r) => r.strategy === s.id).map((r) => r.reason)),
    })),
    faults, latencyMs: bt.latencyMs, sampleMs, metrics, orders, rejected, denied,
    simulated: {
      ticks: simulator.engine.stats.ticks, fills: simulator.engine.stats.fills, requests: metered.stats.requests, weight: metered.stats.weight,
      rateLimited429: metered.stats.rateLimited, pollsSkipped: venue.pollsSkipped(),
    },
  };
  writeBacktestFiles(outDir, report, trades, samples.points, samples.prices, `Backtest: ${cfg.strategies.map((s) => s.id).join(', ')}`);
  const timings = { loadMs: Math.round(loadMs), runMs: Math.round(runMs), reportMs: Math.round(elapsed() - loadMs - runMs) };
  const result: BacktestResult = { outDir, metrics, events, orders, rejected, denied, faults, requests: metered.stats.requests, rateLimited: metered.stats.rateLimited, timings };
  if (faults.length > 0) throw new BacktestFaultError(result);
  return result;
}
