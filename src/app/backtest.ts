// Backtests: recorded market data replayed in virtual time through the same strategies, risk gate, executor,
// order tracker and journal as live, against the in-process simulator. Same inputs -> byte-identical outputs.
// A strategy that faults fails the run (its report is written first).
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Subject } from 'rxjs';
import { join } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import { equity as equityOf } from '../domain/equity.js';
import type { Balance, Fill, Instrument, Position, Ticker } from '../domain/market.js';
import type { ExecutionEvent } from '../domain/events.js';
import type { Order } from '../domain/order.js';
import type { Stamped } from '../data/poll.js';
import type { EndpointId } from '../exchange/endpoints.js';
import { LatencyClient } from '../exchange/sim/latency-client.js';
import { Executor } from '../execution/executor.js';
import { OrderTracker, reconcileAndOpen } from '../execution/order-tracker.js';
import { RiskGate } from '../execution/risk.js';
import { DEFAULT_INSTRUMENTS } from '../exchange/sim/instruments.js';
import { ReplayMarket } from '../exchange/sim/market.js';
import { ExchangeError } from '../exchange/errors.js';
import { MeteredClient } from '../exchange/sim/metered-client.js';
import { SimulatedExchange } from '../exchange/sim/simulated-exchange.js';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import { renderReport } from '../report/html.js';
import { computeMetrics, realize, strategyPnls, type EquityPoint, type Metrics, type StrategyPnl } from '../report/metrics.js';
import { countByReason, describeCounts, rejectionReason } from '../report/rejections.js';
import { loadStrategy } from '../strategy/loader.js';
import { StrategyRunner, type StrategyFault } from '../strategy/runner.js';
import { VirtualClock } from '../util/clock.js';
import { withClock, type Logger } from '../util/logger.js';
import { riskLimits } from './kernel.js';
import { eachReplayRecord } from '../data/replay-file.js';
import { cronInstants } from './cron.js';
import { LatestTickers, startTradingLoop } from './trading-loop.js';

export interface BacktestOptions {
  dataFile?: string;
  fromMs?: number;
  toMs?: number;
  outDir?: string;
  /** Told of progress: market events replayed of the total. */
  onProgress?: (done: number, total: number) => void;
}

/** A strategy that faulted during a run: its id, when (virtual time), and why. */
export interface BacktestFault extends StrategyFault {
  strategy: string;
  atMs: number;
  /** atMs as an ISO time. */
  at: string;
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
  const polls = cfg.daemon.polls;
  const outDir = opts.outDir ?? bt.out;
  const t0 = performance.now();
  // Read a chunk at a time into the replay's columns. Recorded files interleave symbols polled together, so their
  // times can step back a little: the replay sorts them stably by time.
  const market = new ReplayMarket(cfg.sim.instruments ?? DEFAULT_INSTRUMENTS);
  eachReplayRecord(opts.dataFile ?? bt.data, (r) => {
    if ((opts.fromMs === undefined || r.ts >= opts.fromMs) && (opts.toMs === undefined || r.ts <= opts.toMs)) market.add(r);
  });
  if (market.length === 0) throw new Error('no market data in the chosen range');
  market.begin();
  mkdirSync(outDir, { recursive: true });
  const journalPath = join(outDir, 'journal.sqlite');
  for (const f of [journalPath, `${journalPath}-wal`, `${journalPath}-shm`]) if (existsSync(f)) rmSync(f);

  const start = market.nextTs;
  const end = market.lastTs;
  const events = market.length;
  const clock = new VirtualClock(start);
  const logger = withClock(parentLogger.level === 'silent' ? parentLogger : parentLogger.child({}, { level: cfg.log.level }), () => clock.now());
  const simulator = new SimulatedExchange(market, { spot: cfg.sim.accounts.spot, futuresCollateral: cfg.sim.accounts.futuresCollateral, leverage: cfg.sim.accounts.leverage }, cfg.sim.retainOrders, clock);
  // Every request is charged the venue's weights in virtual time (over the budget: the venue's 429) and
  // spends the configured round trip on the way.
  const rl = cfg.exchange.rateLimit;
  const metered = new MeteredClient(simulator, {
    spot: { ip: rl.spot.ip.budget, uid: rl.spot.uid.budget }, futures: { ip: rl.futures.ip.budget, uid: rl.futures.uid.budget },
    windowMs: rl.spot.ip.windowMs, orderRequestsPerSecond: Math.floor((rl.orderRequests.budget * 1000) / rl.orderRequests.windowMs),
  }, clock, cfg.exchange.spotOpenOrders);
  const outMs = Math.floor(bt.latencyMs / 2);
  const backMs = bt.latencyMs - outMs;
  const venue = bt.latencyMs > 0 ? new LatencyClient(metered, outMs, backMs, (ms) => clock.sleep(ms)) : metered;
  // The journal lives in memory while the run goes (nothing to make durable in virtual time) and is saved at the end.
  const journal = new SqliteJournal(':memory:', { clientOidPrefix: cfg.journal.clientOidPrefix });
  const limits = riskLimits(loaded);
  const risk = new RiskGate(limits, journal);
  const instruments = new Map<string, Instrument>();
  for (const s of ['spot', 'futures'] as const) for (const i of await metered.instruments(s)) instruments.set(i.symbol, i);
  const strategies = [];
  for (const s of cfg.strategies) strategies.push({ cfg: s, def: await loadStrategy(s.name, cfg.strategyDirs) });
  const runner = new StrategyRunner(strategies, instruments, logger, cfg.daemon.maxStrategyErrors, undefined, undefined, { clock });
  const symbols = runner.symbols();
  const spotSymbols = symbols.filter((s) => instruments.get(s)?.surface === 'spot');
  const futuresSymbols = symbols.filter((s) => instruments.get(s)?.surface === 'futures');

  // The market-data streams, fed by polls on their daemon.polls periods in virtual time.
  const streams = {
    tickers$: new Subject<Stamped<Map<string, Ticker>>>(),
    openOrders$: new Subject<Stamped<Order[]>>(),
    balances$: new Subject<Stamped<Balance[]>>(),
    positions$: new Subject<Stamped<Position[]>>(),
  };
  const latest = new LatestTickers(limits.outlierPct);
  const executor = new Executor({
    client: venue, journal, risk, clock, logger, instruments,
    reference: latest.reference,
  });
  // The fence holds new orders until reconciliation has settled what a previous run left at the venue. A backtest
  // starts from an empty journal and a fresh simulator: there is nothing to settle, and trading starts with the
  // data. (The startup reconciliation still runs, and is charged, as live.)
  executor.unfence();
  // For the report: refusals and denials by strategy and reason, and whose each venue order is (its fills' owner).
  const refusals: Array<{ strategy: string; reason: string }> = [];
  const denials: string[] = [];
  const ownerOf = new Map<string, string>();
  executor.events$.subscribe((e: ExecutionEvent) => {
    if (e.type === 'accepted' || e.type === 'resolved') ownerOf.set(e.orderId, e.strategyId);
    else if (e.type === 'rejected') refusals.push({ strategy: e.strategyId, reason: rejectionReason(e.code, e.reason) });
    else if (e.type === 'denied') denials.push(e.reason);
  });
  const ex = cfg.execution;
  const tracker = new OrderTracker({
    client: venue, journal, clock, logger, graceMs: ex.graceMs, lostAfterChecks: ex.lostAfterChecks, notPlacedAfterChecks: ex.notPlacedAfterChecks,
    vanishAfterMs: ex.vanishAfterMs, vanishAfterChecks: ex.vanishAfterChecks, symbols: { spot: spotSymbols, futures: futuresSymbols }, events$: executor.events$,
  });
  const fills: Fill[] = [];
  simulator.engine.onFill = (f) => fills.push(f);
  const loop = startTradingLoop({ streams, latest, runner, executor, journal, risk, clock, logger, instruments });

  // Quiet: every chain of promise continuations (the write in flight, a reconciliation) waits on virtual time.
  let reconciling = false;
  const replay = new Replay(market, clock, simulator, () => {
    const running = loop.inFlight.size + (reconciling ? 1 : 0);
    return clock.sleeping === running && !(loop.inFlight.size === 0 && loop.queued() > 0);
  });
  runner.intents$.subscribe(() => replay.touch());
  const background = (what: string, p: Promise<unknown>) => {
    replay.touch();
    p.catch((err: unknown) => {
      if (!(err instanceof ExchangeError)) throw err;
      logger.warn({ err: err.summary(), what }, 'backtest: request failed');
    });
  };

  // Polls: charged and read at the venue at one instant, answered one way later.
  let skipped = 0;
  const poll = <T>(periodMs: number, endpoints: EndpointId[], read: () => T, deliver: (v: Stamped<T>) => void) => {
    if (endpoints.length === 0) return;
    clock.every(start + outMs, periodMs, () => {
      let ok = true;
      for (const id of endpoints) ok = metered.admit(id) && ok;
      if (!ok) {
        skipped++;
        return;
      }
      const v = { value: read(), atMs: clock.now() };
      if (backMs > 0) clock.at(v.atMs + backMs, deliver, v);
      else deliver(v);
    });
  };
  // What the engine shows changes only with its version: reads in between hand back the same answer.
  const cached = <T>(read: () => T) => {
    let version = -1;
    let value: T;
    return () => {
      if (version !== simulator.engine.version) {
        version = simulator.engine.version;
        value = read();
      }
      return value;
    };
  };
  const tickerSymbols = [...futuresSymbols, ...spotSymbols];
  /** The tickers the daemon would read now (a spot pair: its last trade). */
  const tickersNow = () => {
    const m = new Map<string, Ticker>();
    for (const s of tickerSymbols) m.set(s, simulator.tickerNow(s)!);
    return m;
  };
  poll(polls.tickersMs, [...(futuresSymbols.length ? ['F2' as const] : []), ...spotSymbols.map(() => 'S9' as const)], tickersNow, (v) => streams.tickers$.next(v));
  poll(polls.ordersMs, [...spotSymbols.map(() => cfg.exchange.spotOpenOrders), ...futuresSymbols.map(() => 'F5' as const)],
    cached(() => [...spotSymbols.flatMap((s) => simulator.openOrdersNow('spot', s)), ...futuresSymbols.flatMap((s) => simulator.openOrdersNow('futures', s))]),
    (v) => streams.openOrders$.next(v));
  poll(polls.balancesMs, [...(spotSymbols.length ? ['S8' as const] : []), ...(futuresSymbols.length ? ['F3' as const] : [])],
    cached(() => [...(spotSymbols.length ? simulator.balancesNow('spot') : []), ...(futuresSymbols.length ? simulator.balancesNow('futures') : [])]),
    (v) => streams.balances$.next(v));
  poll(polls.positionsMs, futuresSymbols.map(() => 'F4' as const), cached(() => futuresSymbols.flatMap((s) => simulator.positionsNow(s))), (v) => streams.positions$.next(v));

  const reconcile = (scanForeign: boolean) => {
    // With nothing to resolve and nothing to scan, a reconciliation sends no request: it is skipped.
    if (reconciling || (!scanForeign && !executor.fenced && journal.activeOrders().length === 0)) return;
    reconciling = true;
    background('reconcile', reconcileAndOpen(tracker, executor, logger, { scanForeign }).finally(() => (reconciling = false)));
  };
  // Cron schedules, as live, in virtual time.
  const cron = (expression: string, job: () => void) => {
    const next = cronInstants(expression);
    const fire = (at: number) => {
      job();
      const again = next(at);
      if (again !== null) clock.at(again, fire, again);
    };
    const first = next(start);
    if (first !== null) clock.at(first, fire, first);
  };
  // Reconciliation: first before any order (trading is fenced until it succeeds), then on daemon.reconcileCron.
  clock.at(start, () => reconcile(true));
  cron(cfg.daemon.reconcileCron, () => reconcile(false));
  for (const s of cfg.strategies) for (const [hook, expression] of Object.entries(s.schedule)) cron(expression, () => runner.onSchedule(s.id, hook, clock.now()));
  runner.start();

  // Report samples: the simulated account as it truly is (not as last polled), at most ~5,000 of them.
  const sampleMs = bt.sampleMs ?? Math.max(1000, Math.ceil((end - start) / 5000 / 1000) * 1000);
  const equityPoints: EquityPoint[] = [];
  const prices: Record<string, Array<[number, number]>> = {};
  const exposed: boolean[] = [];
  const startBase = new Map(simulator.balancesNow('spot').map((b) => [b.asset, b.total]));
  // What equity counts: the balances of the surfaces the strategies trade.
  const counted = (balances: Balance[]) => balances.filter((b) => b.surface === 'futures' ? futuresSymbols.length > 0 : spotSymbols.length > 0);
  // Buy-and-hold: the account as it starts, valued at each sample's prices.
  const startBalances = counted([...simulator.balancesNow('spot'), ...simulator.balancesNow('futures')]);
  const startPositions = futuresSymbols.flatMap((s) => simulator.positionsNow(s));
  const sample = () => {
    const tickers = tickersNow();
    const sec = Math.floor(clock.now() / 1000);
    for (const [sym, tk] of tickers) {
      const series = (prices[sym] ??= []);
      if (tk.last && (series.length === 0 || series[series.length - 1]![0] < sec)) series.push([sec, tk.last.toNumber()]);
    }
    const balances = [...simulator.balancesNow('spot'), ...simulator.balancesNow('futures')];
    const positions = futuresSymbols.flatMap((s) => simulator.positionsNow(s));
    const price = (s: string) => tickers.get(s)?.last;
    const eq = equityOf(counted(balances), positions, price, instruments);
    const hold = equityOf(startBalances, startPositions, price, instruments);
    if (eq && hold) {
      equityPoints.push({ ts: clock.now(), equity: eq.total, hold: hold.total });
      exposed.push(positions.length > 0 || balances.some((b) => b.surface === 'spot' && b.asset !== 'USDT' && !b.total.eq(startBase.get(b.asset) ?? b.total)));
    }
  };
  clock.every(start, sampleMs, sample);

  // The run: market events and timers in time order (a tick before a timer of the same instant: a poll at t
  // sees the market at t); after the last event, one more round of polls.
  const endAt = end + Math.max(polls.tickersMs, bt.latencyMs);
  opts.onProgress?.(0, events);
  const t1 = performance.now();
  await replay.run(endAt, (done) => opts.onProgress?.(done, events));
  loop.stop();
  const t2 = performance.now();
  if (equityPoints[equityPoints.length - 1]?.ts !== clock.now()) sample();
  opts.onProgress?.(events, events);
  const orders = journal.countByState();
  const finalTickers = tickersNow();
  const pnls = strategyPnls(fills, (f) => ownerOf.get(f.orderId) ?? journal.orderByOrderId(f.orderId)?.strategyId ?? '(not ours)', (s) => finalTickers.get(s)?.last);
  journal.saveTo(journalPath);
  journal.close();

  const trades = realize(fills);
  const metrics = computeMetrics(equityPoints, trades, exposed, YEAR_MS / sampleMs);
  const status = new Map(runner.status().map((s) => [s.id, s]));
  const faults: BacktestFault[] = runner.status().flatMap((s) => {
    if (!s.faulted) return [];
    const atMs = s.atMs!;
    return [{ strategy: s.id, atMs, at: new Date(atMs).toISOString(), hook: s.hook!, error: s.error!, reason: s.reason! }];
  });
  const rejected = countByReason(refusals.map((r) => r.reason));
  const denied = countByReason(denials);
  const noPnl: StrategyPnl = { realized: '0', unrealized: '0', fees: '0', pnl: '0', fills: 0 };
  const report = {
    data: { file: opts.dataFile ?? bt.data, records: events, fromMs: start, toMs: end },
    strategies: cfg.strategies.map((s) => ({
      id: s.id, name: s.name, symbols: s.symbols, params: s.params, pnl: pnls[s.id] ?? noPnl, errors: status.get(s.id)?.errors ?? 0,
      rejected: countByReason(refusals.filter((r) => r.strategy === s.id).map((r) => r.reason)),
    })),
    faults,
    latencyMs: bt.latencyMs,
    sampleMs,
    metrics,
    orders,
    rejected,
    denied,
    simulated: {
      ticks: simulator.engine.stats.ticks, fills: simulator.engine.stats.fills, requests: metered.stats.requests, weight: metered.stats.weight,
      rateLimited429: metered.stats.rateLimited, pollsSkipped: skipped,
    },
  };
  writeFileSync(join(outDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(
    join(outDir, 'trades.csv'),
    ['ts,symbol,order_id,fill_id,side,price,size,amount,fee,realized_pnl', ...trades.map((t) => [t.timestampMs, t.symbol, t.orderId, t.fillId, t.side, t.price, t.size, t.amount, t.fee, t.realizedPnl].join(','))].join('\n') + '\n',
  );
  writeFileSync(join(outDir, 'equity.csv'), ['ts,equity,buy_and_hold', ...equityPoints.map((p) => `${p.ts},${p.equity.toString(8)},${p.hold.toString(8)}`)].join('\n') + '\n');
  const equityChart: Array<[number, number]> = [];
  const holdChart: Array<[number, number]> = [];
  for (const p of equityPoints) {
    const sec = Math.floor(p.ts / 1000);
    if (equityChart.length === 0 || equityChart[equityChart.length - 1]![0] < sec) {
      equityChart.push([sec, p.equity.toNumber()]);
      holdChart.push([sec, p.hold.toNumber()]);
    }
  }
  writeFileSync(
    join(outDir, 'report.html'),
    renderReport({
      title: `Backtest: ${cfg.strategies.map((s) => s.id).join(', ')}`,
      metrics, orders, rejected, denied, prices, equity: equityChart, hold: holdChart,
      strategies: report.strategies.map((s) => ({ id: s.id, pnl: s.pnl.pnl, fills: s.pnl.fills, errors: s.errors })),
      faults,
      venue: {
        'round trip (ms)': bt.latencyMs, requests: report.simulated.requests,
        ...Object.fromEntries(Object.entries(report.simulated.weight).map(([pool, w]) => [`weight used ${pool}`, w])),
        '429s simulated': report.simulated.rateLimited429, 'polls skipped': report.simulated.pollsSkipped,
      },
      fills: trades.map((t) => ({ symbol: t.symbol, time: Math.floor(t.timestampMs / 1000), side: t.side, price: t.price.toNumber(), size: t.size.toString() })),
    }),
  );
  const timings = { loadMs: Math.round(t1 - t0), runMs: Math.round(t2 - t1), reportMs: Math.round(performance.now() - t2) };
  const result: BacktestResult = { outDir, metrics, events, orders, rejected, denied, faults, requests: metered.stats.requests, rateLimited: metered.stats.rateLimited, timings };
  if (faults.length > 0) throw new BacktestFaultError(result);
  return result;
}

/**
 * Drives a run: market events and virtual-time timers in time order (a tick before a timer of the same instant:
 * a poll at t sees the market at t). Work started by a timer or an intent runs as promise continuations, which
 * run before virtual time moves on: every chain of them (the write in flight, a reconciliation) ends waiting on
 * a virtual-time sleep or done, and microtask turns are given until `quiet` says so; anything else still pending
 * gets a full turn of the event loop (setImmediate runs after every pending microtask). Nothing real is awaited,
 * so runs repeat exactly.
 */
class Replay {
  private dirty = false;

  constructor(
    private readonly market: ReplayMarket,
    private readonly clock: VirtualClock,
    private readonly simulator: SimulatedExchange,
    private readonly quiet: () => boolean,
  ) {}

  /** Something was started that continues in promise continuations. */
  touch(): void {
    this.dirty = true;
  }

  async run(endAt: number, onProgress: (eventsDone: number) => void): Promise<void> {
    const { market, clock, simulator } = this;
    let steps = 0;
    for (;;) {
      const tEvent = market.nextTs;
      const tTimer = clock.nextAt();
      if (tTimer < tEvent) {
        if (tTimer > endAt) return;
        if (clock.runNext()) this.dirty = true;
      } else {
        if (tEvent === Number.POSITIVE_INFINITY) return;
        simulator.advanceTo(tEvent);
        if (++steps % 65536 === 0) onProgress(market.replayed);
      }
      if (this.dirty) {
        this.dirty = false;
        await this.settle();
      }
    }
  }

  private async settle(): Promise<void> {
    for (let k = 0; k < 64; k++) {
      if (this.quiet()) return;
      await null;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
