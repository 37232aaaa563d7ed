// The trading core, built once and the same for every mode (daemon, dry-run, backtest, test fixtures): strategies,
// risk gate, executor, order tracker, stop manager, the trading loop over a venue's market-data streams, reconciliation before
// trading and on schedule, strategy schedules. The handle it returns is what the commands, the ops endpoints and a
// future operator API read and drive; which venue, streams and clock it gets is the kernel's choice.
import { Subscription } from 'rxjs';
import type { Stamped } from '../data/poll.js';
import type { BarNeed, BarSource } from '../data/bar-feed.js';
import type { PolledSymbols } from '../data/polls.js';
import type { Decimal } from '../domain/decimal.js';
import type { ExecutionEvent, TradingState } from '../domain/events.js';
import type { Intent } from '../domain/intent.js';
import type { Balance, Instrument, Position, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';
import type { ExchangeClient } from '../exchange/client.js';
import { Executor } from '../execution/executor.js';
import type { KillHooks } from '../execution/kill-points.js';
import { OrderTracker, reconcileAndOpen, type ReconcileReport } from '../execution/order-tracker.js';
import { RiskGate, type RiskLimits } from '../execution/risk.js';
import { StopManager, type StopSettings } from '../execution/stop-manager.js';
import { watchLiquidation, type LiquidationRules } from '../execution/liquidation-watch.js';
import type { Journal, JournalOrder } from '../journal/journal.js';
import type { StrategyDefinition } from '../strategy/api.js';
import { loadStrategy } from '../strategy/loader.js';
import { StrategyRunner, type StateStore, type StrategyInstanceConfig, type StrategyStatus } from '../strategy/runner.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { Schedules } from './cron.js';
import { LatestTickers, startTradingLoop, type MarketStreams, type TradingLoop } from './trading-loop.js';

/** The symbols the strategies trade, by surface (from the instruments). */
export interface TradedSymbols extends PolledSymbols {
  all: string[];
  spot: string[];
  futures: string[];
  /** The bar series the strategies asked for, and the spot pairs among their symbols (their trades are polled). */
  bars: BarNeed[];
  barSpot: string[];
}

/** Checks that the venue takes our keys (live venues only): trading stays fenced until it does. */
export interface KeyCheck {
  /** Why the venue's refusals of our keys halted signing, if they did. */
  authHalt(): { reason: string } | undefined;
  /** A signed read that succeeds with working keys (throws otherwise). */
  probe(surfaces: ReadonlyArray<'spot' | 'futures'>): Promise<void>;
}

/** A venue bound to the symbols traded: where orders go, what the strategies watch. */
export interface BoundVenue {
  trading: ExchangeClient;
  streams?: MarketStreams;
  /** Before the strategies see a tickers update (a paper venue follows the market here). */
  beforeTickers?: (tickers: Stamped<Map<string, Ticker>>) => void;
  keys?: KeyCheck;
  /** The bars of the series asked for (none asked: absent). */
  bars?: BarSource;
}

/** The execution settings of the order tracker (config `execution`). */
export interface TrackingSettings {
  graceMs: number;
  lostAfterChecks: number;
  notPlacedAfterChecks?: number;
  vanishAfterMs?: number;
  vanishAfterChecks?: number;
  /** Managed stops (config `execution.stops`); absent: the defaults. */
  stops?: StopSettings;
}

export interface CoreOptions {
  instruments: Map<string, Instrument>;
  /** Binds the venue once the traded symbols are known. */
  bind(symbols: TradedSymbols): BoundVenue;
  journal: Journal;
  clock: Clock;
  logger: Logger;
  limits: RiskLimits;
  /** How the venue margins futures: the positions' distance to liquidation is worked out for the risk gate (absent: not watched). */
  margin?: LiquidationRules;
  tracking: TrackingSettings;
  strategies?: {
    instances: StrategyInstanceConfig[];
    dirs: string[];
    maxErrors: number;
    store?: StateStore;
    restartFaultedAfterMs?: number;
    hookTimeoutMs?: number;
  };
  /** Loaded strategy definitions by name, instead of loading them from `strategies.dirs`. */
  definitions?: ReadonlyMap<string, StrategyDefinition<unknown>>;
  /** New orders wait for the first reconciliation (live); false trades at once (a backtest: nothing to settle). */
  fencedUntilReconciled?: boolean;
  /**
   * The open-order caps count the orders the venue listed, as well as the journal's: `true` takes those of the last
   * orders poll; a function supplies them (test fixtures).
   */
  capsCountListed?: boolean | (() => readonly Order[]);
  /** Symbols scanned for orders we did not create (default: the traded symbols). */
  scanSymbols?: PolledSymbols;
  /** Reference prices for the risk gate instead of the tickers stream's (test fixtures). */
  reference?: (symbol: string) => { price: Decimal; atMs: number } | undefined;
  hooks?: KillHooks;
  onIntent?: (intent: Intent) => void;
  onEvent?: (event: ExecutionEvent) => void;
  onEquity?: (bySurface: Record<string, Decimal>, atMs: number) => void;
  yieldAfterIntent?: () => Promise<void>;
}

/** What the core holds now: the read side of the handle. */
export interface CoreState {
  strategies: StrategyStatus[];
  orders: JournalOrder[];
  positions: Position[];
  balances: Balance[];
  /** Equity by surface at trusted prices, as last valued (undefined before the first valuation). */
  equity: { bySurface: Record<string, Decimal>; atMs: number } | undefined;
  tradingState: TradingState;
  fenced: string | null;
  /** The orders that hold the fence, from the last reconciliation. */
  pending: ReconcileReport['pending'];
}

export interface Core {
  readonly instruments: Map<string, Instrument>;
  readonly symbols: TradedSymbols;
  readonly journal: Journal;
  readonly risk: RiskGate;
  readonly executor: Executor;
  readonly tracker: OrderTracker;
  /** Managed stops: the protection strategies ask for (protect intents), kept in line with their positions. */
  readonly stops: StopManager;
  readonly runner: StrategyRunner;
  readonly venue: BoundVenue;
  /** Reconciles the journal with the venue (the first one lifts the fence once nothing is unsettled); asked while one runs, joins it. */
  reconcile(opts?: { scanForeign?: boolean; startup?: boolean }): Promise<void>;
  /** Starts trading: the loop over the streams, the strategies' onStart, then the schedules (reconciliation first). */
  start(schedules?: Schedules, reconcileCron?: string, strategySchedules?: Array<{ id: string; schedule: Record<string, string> }>): void;
  /** Nothing more reaches the strategies or the executor; writes in flight finish on their own. */
  stopIntake(): void;
  /** Writes in flight (a stop waits for them). */
  readonly inFlight: ReadonlySet<Promise<unknown>>;
  /** Intents waiting for the one in flight. */
  queued(): number;
  /** Work going on in promise continuations: writes in flight and a reconciliation. */
  busy(): number;
  state(): CoreState;
  /** When the last reconciliation completed (null: none has yet). */
  lastReconciledAtMs(): number | null;
  /** Applies new strategy params, all or nothing; returns the problems (nothing applied then). Instances, names and symbols cannot change. */
  updateParams(instances: StrategyInstanceConfig[]): string[];
}

export async function buildCore(opts: CoreOptions): Promise<Core> {
  const { instruments, journal, clock, logger } = opts;
  const log = logger.child({ component: 'core' });
  const risk = new RiskGate(opts.limits, journal, clock);
  const st = opts.strategies;
  const loaded: Array<{ cfg: StrategyInstanceConfig; def: StrategyDefinition<unknown> }> = [];
  for (const s of st?.instances ?? []) loaded.push({ cfg: s, def: opts.definitions?.get(s.name) ?? (await loadStrategy(s.name, st!.dirs)) });
  const runner = new StrategyRunner(
    loaded,
    instruments,
    logger,
    st?.maxErrors ?? 0,
    st?.store,
    st?.restartFaultedAfterMs ? { afterMs: st.restartFaultedAfterMs, clock } : undefined,
    { ...(st?.hookTimeoutMs !== undefined ? { hookTimeoutMs: st.hookTimeoutMs } : {}), clock },
  );
  const all = runner.symbols();
  const bars = runner.barNeeds();
  const spot = all.filter((s) => instruments.get(s)?.surface === 'spot');
  const barSymbols = new Set(bars.map((n) => n.symbol));
  const symbols: TradedSymbols = {
    all,
    spot,
    futures: all.filter((s) => instruments.get(s)?.surface === 'futures'),
    bars,
    barSpot: spot.filter((s) => barSymbols.has(s)),
  };
  const venue = opts.bind(symbols);
  // Bars: the forming one read where it is built; the history warmed before the strategies start.
  if (venue.bars) {
    const source = venue.bars;
    for (const n of bars) runner.formingFrom(n.symbol, n.timeframe, () => source.forming(n.symbol, n.timeframe));
    for (const { need, bars: history } of (await source.warm?.()) ?? []) runner.warm(need.symbol, need.timeframe, history);
  }

  // What the venue listed at the last poll, and the account as last read.
  let listed: Order[] = [];
  let positions: Position[] = [];
  let balances: Balance[] = [];
  let equity: CoreState['equity'];
  const streams = venue.streams && venue.bars ? { ...venue.streams, bar$: venue.bars.bar$ } : venue.streams;
  const latest = new LatestTickers(opts.limits.outlierPct);
  const executor = new Executor({
    client: venue.trading,
    journal,
    risk,
    clock,
    logger,
    instruments,
    reference: opts.reference ?? latest.reference,
    ...(opts.capsCountListed ? { listed: typeof opts.capsCountListed === 'function' ? opts.capsCountListed : () => listed } : {}),
    ...(opts.hooks ? { hooks: opts.hooks } : {}),
  });
  if (opts.fencedUntilReconciled === false) executor.unfence();
  const t = opts.tracking;
  const tracker = new OrderTracker({
    client: venue.trading,
    journal,
    clock,
    logger,
    graceMs: t.graceMs,
    lostAfterChecks: t.lostAfterChecks,
    ...(t.notPlacedAfterChecks !== undefined ? { notPlacedAfterChecks: t.notPlacedAfterChecks } : {}),
    ...(t.vanishAfterMs !== undefined ? { vanishAfterMs: t.vanishAfterMs } : {}),
    ...(t.vanishAfterChecks !== undefined ? { vanishAfterChecks: t.vanishAfterChecks } : {}),
    symbols: { spot: [...(opts.scanSymbols ?? symbols).spot], futures: [...(opts.scanSymbols ?? symbols).futures] },
    events$: executor.events$,
    ...(opts.hooks ? { hooks: opts.hooks } : {}),
  });
  const stops = new StopManager({ executor, tracker, journal, clock, logger, instruments, strategyIds: runner.ids, ...(t.stops ? { settings: t.stops } : {}) });
  executor.keepProtectionWith(stops);

  // Trading stays fenced (cancels allowed) until a signed request has succeeded (keys that work), and whenever the
  // authentication halt has tripped; then until a reconciliation has settled every order.
  const surfaces = [...new Set(all.map((s) => instruments.get(s)!.surface))];
  let keysOk = !venue.keys || surfaces.length === 0;
  let lastReport: ReconcileReport | undefined;
  let reconciledAtMs: number | null = null;
  let reconciling: Promise<void> | undefined;
  const keysUsable = async (): Promise<boolean> => {
    const keys = venue.keys;
    if (!keys) return true;
    const halt = keys.authHalt();
    if (halt) {
      const reason = `authentication halted: ${halt.reason}`;
      if (executor.fenced !== reason) log.error({ reason }, 'trading halted: the venue refused our keys (restart once they are fixed)');
      executor.fence(reason);
      return false;
    }
    if (keysOk) return true;
    try {
      await keys.probe(surfaces);
      keysOk = true;
      return true;
    } catch (err) {
      const reason = `no signed request has succeeded yet: ${(err as Error).message}`;
      if (executor.fenced !== reason) log.warn({ reason }, 'trading fenced (cancels allowed)');
      executor.fence(reason);
      return false;
    }
  };
  /** A reconciliation, or undefined when it is skipped as idle (a schedule then has nothing to wait for). */
  const reconcileUnlessIdle = (ropts: { scanForeign?: boolean; startup?: boolean }): Promise<void> | undefined => {
    if (reconciling) return reconciling;
    // With nothing to resolve and nothing to scan, a reconciliation sends no request: it is skipped (decided as it
    // is asked for; a venue with keys to check checks them first).
    const idle = () => !ropts.scanForeign && !ropts.startup && !executor.fenced && journal.activeOrders().length === 0;
    if (!venue.keys && idle()) return undefined;
    reconciling = (async () => {
      if (!(await keysUsable())) return;
      if (idle()) return;
      const report = await reconcileAndOpen(tracker, executor, log, ropts);
      if (report) {
        lastReport = report;
        reconciledAtMs = clock.now();
      }
    })().finally(() => (reconciling = undefined));
    return reconciling;
  };
  const reconcile = (ropts: { scanForeign?: boolean; startup?: boolean } = {}): Promise<void> => reconcileUnlessIdle(ropts) ?? Promise.resolve();

  let loop: TradingLoop | undefined;
  let schedules: Schedules | undefined;
  const inFlight = new Set<Promise<unknown>>();
  const subs = new Subscription();
  return {
    instruments,
    symbols,
    journal,
    risk,
    executor,
    tracker,
    stops,
    runner,
    venue,
    reconcile,
    start: (sched, reconcileCron, strategySchedules = []) => {
      if (streams) {
        subs.add(streams.openOrders$.subscribe((x) => (listed = x.value)));
        // The account as last read: the core's state, and the risk rules' snapshot.
        subs.add(
          streams.positions$.subscribe((x) => {
            positions = x.value;
            risk.observeAccount({ positions: x.value, atMs: x.atMs });
          }),
        );
        subs.add(
          streams.balances$.subscribe((x) => {
            balances = x.value;
            risk.observeAccount({ balances: x.value, atMs: x.atMs });
          }),
        );
        // The distance to liquidation as positions, balances and tickers update (worked out when read).
        if (opts.margin) subs.add(watchLiquidation(streams, instruments, opts.margin, (read, atMs) => risk.observeLiquidation(read, atMs)));
        loop = startTradingLoop({
          streams,
          latest,
          runner,
          executor,
          journal,
          risk,
          stops,
          clock,
          logger,
          instruments,
          ...(venue.beforeTickers ? { beforeTickers: venue.beforeTickers } : {}),
          ...(opts.onIntent ? { onIntent: opts.onIntent } : {}),
          ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
          onEquity: (bySurface, atMs) => {
            equity = { bySurface, atMs };
            opts.onEquity?.(bySurface, atMs);
          },
          ...(opts.yieldAfterIntent ? { yieldAfterIntent: opts.yieldAfterIntent } : {}),
        });
      }
      venue.bars?.start();
      schedules = sched;
      if (sched && reconcileCron) sched.add('reconcile', reconcileCron, () => reconcileUnlessIdle({}));
      for (const s of strategySchedules)
        for (const [hook, expr] of Object.entries(s.schedule)) sched?.add(`${s.id}.${hook}`, expr, () => runner.onSchedule(s.id, hook, clock.now()));
      runner.start();
    },
    stopIntake: () => {
      venue.bars?.stop();
      loop?.stop();
      subs.unsubscribe();
      schedules?.stop();
    },
    get inFlight() {
      return loop?.inFlight ?? inFlight;
    },
    queued: () => loop?.queued() ?? 0,
    busy: () => (loop?.inFlight.size ?? 0) + (reconciling ? 1 : 0),
    updateParams: (next) => {
      const current = st?.instances ?? [];
      const problems: string[] = [];
      const byId = new Map(next.map((s) => [s.id, s]));
      for (const s of current) {
        const n = byId.get(s.id);
        if (!n || n.name !== s.name || JSON.stringify(n.symbols) !== JSON.stringify(s.symbols))
          problems.push(`strategies[${s.id}]: only params can change without a restart`);
      }
      for (const id of byId.keys()) if (!current.some((s) => s.id === id)) problems.push(`strategies[${id}]: adding a strategy needs a restart`);
      if (problems.length) return problems;
      // Validate every instance first, then apply: all or nothing.
      const trial = next.flatMap((s) => runner.checkParams(s.id, s.params));
      if (trial.length) return trial;
      for (const s of next) runner.updateParams(s.id, s.params);
      return [];
    },
    lastReconciledAtMs: () => reconciledAtMs,
    state: () => ({
      strategies: runner.status(),
      orders: journal.activeOrders(),
      positions,
      balances,
      equity,
      tradingState: risk.state(),
      fenced: executor.fenced,
      pending: executor.fenced ? (lastReport?.pending ?? []) : [],
    }),
  };
}
