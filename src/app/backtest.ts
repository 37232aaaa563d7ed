// Backtests: recorded market data replayed in virtual time through the same strategies, risk gate, executor,
// order tracker and journal as live, against the in-process simulator. Same inputs -> byte-identical outputs.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import type { Decimal } from '../domain/decimal.js';
import { equity as equityOf } from '../domain/equity.js';
import type { Fill, Instrument, Ticker } from '../domain/market.js';
import { Executor } from '../execution/executor.js';
import { OrderTracker } from '../execution/order-tracker.js';
import { RiskGate } from '../execution/risk.js';
import { DEFAULT_INSTRUMENTS } from '../exchange/sim/instruments.js';
import { ReplayMarket } from '../exchange/sim/market.js';
import { ExchangeError } from '../exchange/errors.js';
import { MeteredClient } from '../exchange/sim/metered-client.js';
import { SimulatedExchange } from '../exchange/sim/simulated-exchange.js';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import { renderReport } from '../report/html.js';
import { computeMetrics, realize, type EquityPoint, type Metrics } from '../report/metrics.js';
import { loadStrategy } from '../strategy/loader.js';
import { StrategyRunner } from '../strategy/runner.js';
import type { Logger } from '../util/logger.js';
import { readReplayFile, riskLimits } from './kernel.js';
import { readBalances, readOrders, readPositions, readTickers, strategyUpdate, type CycleData } from './market-cycle.js';

export interface BacktestOptions {
  dataFile?: string;
  fromMs?: number;
  toMs?: number;
  outDir?: string;
  /** Told of progress: cycles done of the total. */
  onProgress?: (done: number, total: number) => void;
}

export interface BacktestResult {
  outDir: string;
  metrics: Metrics;
  cycles: number;
  events: number;
  orders: Record<string, number>;
}

const YEAR_MS = 365 * 24 * 3600 * 1000;

export async function runBacktest(loaded: LoadedConfig, logger: Logger, opts: BacktestOptions = {}): Promise<BacktestResult> {
  const cfg = loaded.config;
  const outDir = opts.outDir ?? cfg.backtest.out;
  const all = readReplayFile(opts.dataFile ?? cfg.backtest.data);
  // Recorded files interleave symbols polled together, so their times can step back a little: a stable sort
  // by time keeps each symbol's order and makes the file replayable.
  const records = all
    .filter((r) => (opts.fromMs === undefined || r.ts >= opts.fromMs) && (opts.toMs === undefined || r.ts <= opts.toMs))
    .sort((a, b) => a.ts - b.ts);
  if (records.length === 0) throw new Error('no market data in the chosen range');
  mkdirSync(outDir, { recursive: true });
  const journalPath = join(outDir, 'journal.sqlite');
  for (const f of [journalPath, `${journalPath}-wal`, `${journalPath}-shm`]) if (existsSync(f)) rmSync(f);

  const specs = cfg.sim.instruments ?? DEFAULT_INSTRUMENTS;
  const market = new ReplayMarket(specs, records);
  const simulator = new SimulatedExchange(market, { spot: cfg.sim.accounts.spot, futuresCollateral: cfg.sim.accounts.futuresCollateral, leverage: cfg.sim.accounts.leverage }, cfg.sim.retainOrders);
  const clock = simulator.clock;
  // Every call is charged the venue's weights in virtual time; what goes over the budget gets a 429.
  const rl = cfg.exchange.rateLimit;
  const sim = new MeteredClient(simulator, {
    spot: { ip: rl.spot.ip.budget, uid: rl.spot.uid.budget }, futures: { ip: rl.futures.ip.budget, uid: rl.futures.uid.budget },
    windowMs: rl.spot.ip.windowMs, orderRequestsPerSecond: Math.floor((rl.orderRequests.budget * 1000) / rl.orderRequests.windowMs),
  }, clock);
  const journal = new SqliteJournal(journalPath, { clientOidPrefix: cfg.journal.clientOidPrefix });
  const risk = new RiskGate(riskLimits(loaded), journal);
  const instruments = new Map<string, Instrument>();
  for (const s of ['spot', 'futures'] as const) for (const i of await sim.instruments(s)) instruments.set(i.symbol, i);
  const strategies = [];
  for (const s of cfg.strategies) strategies.push({ cfg: s, def: await loadStrategy(s.name, cfg.strategyDirs) });
  const runner = new StrategyRunner(strategies, instruments, logger, cfg.daemon.maxStrategyErrors);
  const symbols = runner.symbols();
  const spotSymbols = symbols.filter((s) => instruments.get(s)?.surface === 'spot');
  const futuresSymbols = symbols.filter((s) => instruments.get(s)?.surface === 'futures');

  let tickers = new Map<string, Ticker>();
  let tickersAt = 0;
  const executor = new Executor({
    client: sim, journal, risk, clock, logger, instruments,
    reference: (s): { price: Decimal; atMs: number } | undefined => {
      const t = tickers.get(s);
      return t?.last ? { price: t.last, atMs: tickersAt } : undefined;
    },
  });
  const tracker = new OrderTracker({ client: sim, journal, clock, logger, graceMs: cfg.execution.graceMs, lostAfterChecks: cfg.execution.lostAfterChecks, symbols: { spot: spotSymbols, futures: futuresSymbols }, events$: executor.events$ });
  const fills: Fill[] = [];
  simulator.engine.onFill = (f) => fills.push(f);
  const queue: Parameters<Executor['submit']>[0][] = [];
  runner.intents$.subscribe((i) => queue.push(i));
  executor.events$.subscribe((e) => runner.onEvent(e));

  await tracker.reconcile({ scanForeign: true });
  executor.unfence();
  runner.start();

  const equity: EquityPoint[] = [];
  const prices: Record<string, Array<[number, number]>> = {};
  const exposed: boolean[] = [];
  const startBase = new Map((await sim.balances('spot')).map((b) => [b.asset, b.total]));
  const step = cfg.backtest.cycleMs;
  const start = records[0]!.ts;
  const end = records[records.length - 1]!.ts;
  let cycles = 0;
  let skipped = 0;
  const lastRead = { orders: -Infinity, balances: -Infinity, positions: -Infinity };
  let last: CycleData | undefined;
  const totalCycles = Math.floor((end + step - start) / step) + 1;
  for (let t = start; t <= end + step; t += step) {
    if (cycles % 50 === 0) opts.onProgress?.(cycles, totalCycles);
    simulator.advanceTo(t);
    // Each stream is read on its own period (daemon.polls), as live; a refused read skips the cycle.
    const polls = cfg.daemon.polls;
    const due = (name: keyof typeof lastRead, periodMs: number) => t - lastRead[name] >= periodMs;
    let cycle: CycleData;
    try {
      const prev = last ?? { tickers: new Map(), orders: [], balances: [], positions: [] };
      const now = t;
      cycle = {
        tickers: await readTickers(sim, spotSymbols, futuresSymbols),
        orders: due('orders', polls.ordersMs) ? ((lastRead.orders = now), await readOrders(sim, spotSymbols, futuresSymbols)) : prev.orders,
        balances: due('balances', polls.balancesMs) ? ((lastRead.balances = now), await readBalances(sim, spotSymbols, futuresSymbols)) : prev.balances,
        positions: due('positions', polls.positionsMs) ? ((lastRead.positions = now), await readPositions(sim, futuresSymbols)) : prev.positions,
      };
      last = cycle;
    } catch (err) {
      if (!(err instanceof ExchangeError)) throw err;
      skipped++;
      cycles++;
      continue;
    }
    tickers = cycle.tickers;
    tickersAt = clock.now();
    // Chart points: one per second at most (chart time is in whole seconds).
    const sec = Math.floor(clock.now() / 1000);
    for (const [sym, tk] of tickers) {
      const series = (prices[sym] ??= []);
      if (tk.last && (series.length === 0 || series[series.length - 1]![0] < sec)) series.push([sec, tk.last.toNumber()]);
    }
    const { balances, positions } = cycle;
    runner.onMarket((sc) => strategyUpdate(sc, clock.now(), cycle, journal));
    while (queue.length) await executor.submit(queue.shift()!);
    cycles++;
    if (cycles % cfg.backtest.reconcileEvery === 0) {
      await tracker.reconcile().catch((err: unknown) => {
        if (!(err instanceof ExchangeError)) throw err;
      });
    }
    const eq = equityOf(balances, positions, tickers, instruments);
    if (eq) {
      equity.push({ ts: clock.now(), equity: eq.total });
      exposed.push(positions.length > 0 || balances.some((b) => b.surface === 'spot' && b.asset !== 'USDT' && !b.total.eq(startBase.get(b.asset) ?? b.total)));
    }
  }
  opts.onProgress?.(totalCycles, totalCycles);
  const orders = journal.countByState();
  journal.close();

  const trades = realize(fills);
  const periodsPerYear = YEAR_MS / step;
  const metrics = computeMetrics(equity, trades, exposed, periodsPerYear);
  const report = {
    data: { file: opts.dataFile ?? cfg.backtest.data, records: records.length, fromMs: start, toMs: end },
    strategies: cfg.strategies.map((s) => ({ id: s.id, name: s.name, symbols: s.symbols, params: s.params })),
    cycles,
    metrics,
    orders,
    simulated: {
      ticks: simulator.engine.stats.ticks, fills: simulator.engine.stats.fills, requests: sim.stats.requests, weight: sim.stats.weight,
      rateLimited429: sim.stats.rateLimited, cyclesSkipped: skipped,
    },
  };
  writeFileSync(join(outDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(
    join(outDir, 'trades.csv'),
    ['ts,symbol,order_id,fill_id,side,price,size,amount,fee,realized_pnl', ...trades.map((t) => [t.timestampMs, t.symbol, t.orderId, t.fillId, t.side, t.price, t.size, t.amount, t.fee, t.realizedPnl].join(','))].join('\n') + '\n',
  );
  writeFileSync(join(outDir, 'equity.csv'), ['ts,equity', ...equity.map((p) => `${p.ts},${p.equity.toString(8)}`)].join('\n') + '\n');
  const equityPoints: Array<[number, number]> = [];
  for (const p of equity) {
    const sec = Math.floor(p.ts / 1000);
    if (equityPoints.length === 0 || equityPoints[equityPoints.length - 1]![0] < sec) equityPoints.push([sec, p.equity.toNumber()]);
  }
  writeFileSync(
    join(outDir, 'report.html'),
    renderReport({
      title: `Backtest: ${cfg.strategies.map((s) => s.id).join(', ')}`,
      metrics, orders, prices, equity: equityPoints,
      fills: trades.map((t) => ({ symbol: t.symbol, time: Math.floor(t.timestampMs / 1000), side: t.side, price: t.price.toNumber(), size: t.size.toString() })),
    }),
  );
  return { outDir, metrics, cycles, events: records.length, orders };
}
